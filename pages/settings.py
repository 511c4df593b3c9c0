"""Settings: which local model writes answers (or none), the embedding model, the store."""

from __future__ import annotations

import streamlit as st

from engine.service import Backend, LLMSpec, ollama_host, presets
from ui.state import library

_CHOICES = {
    "none": "No model: extractive answers (the contracts' own sentences)",
    "ollama": "Ollama",
    "openai": "OpenAI-compatible local server (llama.cpp, LM Studio, vLLM)",
}


def _size(nbytes: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if nbytes < 1024 or unit == "GB":
            return f"{nbytes:.0f} {unit}" if unit == "B" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    return f"{nbytes} B"


def _model_section(lib) -> None:
    st.subheader("Answer model")
    current = lib.llm_spec
    st.caption(
        "Now answering: **" + ("extractive, no model" if current.backend is Backend.NONE else f"{current.backend.value} model {current.model} at {current.url}") + "**. "
        "Only the host you enter here is ever contacted."
    )
    kind = st.radio("Backend", list(_CHOICES), format_func=_CHOICES.get, index=list(_CHOICES).index(current.backend.value), key="settings_backend")
    if kind == "none":
        if current.backend is not Backend.NONE and st.button("Answer without a model", key="settings_use_none", type="primary"):
            lib.choose_llm(LLMSpec())
            st.rerun()
        return
    default_url = current.url if current.backend.value == kind and current.url else (ollama_host() if kind == "ollama" else "http://127.0.0.1:8080/v1")
    url = st.text_input("Host URL" if kind == "ollama" else "Server URL (OpenAI-compatible, ending in /v1)", value=default_url, key=f"settings_url_{kind}")
    status = lib.model_host(LLMSpec(backend=Backend(kind), url=url, model="?"))
    if status.reachable:
        st.success(f"{url} is reachable: {len(status.models)} model{'s' if len(status.models) != 1 else ''}.", icon=":material/check_circle:")
    else:
        st.error(f"{url} cannot be reached ({status.error}). Start the server, or check the address.", icon=":material/link_off:")
    if status.models:
        preselect = status.models.index(current.model) if current.model in status.models else 0
        model = st.selectbox("Model", status.models, index=preselect, key=f"settings_model_{kind}")
    else:
        model = st.text_input("Model name", value=current.model or "", key=f"settings_model_name_{kind}")
    if st.button("Use this model", key="settings_use", type="primary", disabled=not (model and url)):
        lib.choose_llm(LLMSpec(backend=Backend(kind), url=url, model=model))
        st.toast(f"Answers now come from {model}")
        st.rerun()


def settings_page() -> None:
    lib = library()
    st.title("Settings")
    _model_section(lib)
    st.divider()
    st.subheader("Embeddings and store")
    left, middle, right = st.columns(3)
    left.metric("Embedding model (local)", lib.embedder.model_name)
    middle.metric("Contracts", len(lib.documents()))
    right.metric("Store size", _size(lib.store_size()))
    status = lib.vector_status()
    mode = lib.settings.ingest.vectors
    how = {
        "progressive": "new contracts get quick vectors at once and MiniLM's in the background",
        "full": "new contracts are embedded by MiniLM at ingest (slower to become searchable)",
        "quick": "new contracts get quick vectors only (the `large-library` preset): fastest, lower recall",
    }[mode]
    st.markdown(
        f"Vectors (`ingest.vectors = {mode}`): {how}. Full vectors: {status.ready} of "
        f"{status.ready + len(status.pending)} contracts; quick model `{lib.quick_embedder.model_name}`."
    )
    st.markdown(f"Store location: `{lib.settings.store}`")
    st.caption("Start the app on another store with `streamlit run app.py -- --db DIR` or `CLAUSEGRAPH_DB=DIR`.")
    st.divider()
    _preset_section(lib)


def _preset_section(lib) -> None:
    settings = lib.settings
    st.subheader("Retrieval and answer settings")
    st.markdown(
        f"Preset **{settings.preset}** (settings hash `{settings.fingerprint()}`), one of: "
        + ", ".join(f"`{name}`" for name in presets())
        + ". Every evaluation output records the preset and hash it ran with."
    )
    st.caption("Start the app with another preset: `streamlit run app.py -- --preset NAME`; presets are files in `engine/presets/`.")
    with st.expander("All values of this preset"):
        st.json(settings.model_dump(mode="json", exclude={"store"}), expanded=1)


settings_page()
