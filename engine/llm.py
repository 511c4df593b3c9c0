"""Local language-model backends, named by one short spec string.

    none                      no model: rules and extractive answers only
    ollama:MODEL              an Ollama server (host from OLLAMA_HOST, default 127.0.0.1:11434)
    openai:URL#MODEL          an OpenAI-compatible local server (llama.cpp, LM Studio, vLLM)

Only local hosts are ever contacted: the URL comes from the user, never from the code.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import BaseModel

from engine.errors import ClausegraphError

DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"
OLLAMA_HOST_ENV = "OLLAMA_HOST"


class Backend(StrEnum):
    NONE = "none"
    OLLAMA = "ollama"
    OPENAI = "openai"


class LLMSpec(BaseModel):
    backend: Backend = Backend.NONE
    model: str | None = None
    url: str | None = None
    timeout: float = 120.0


def ollama_host() -> str:
    host = os.environ.get(OLLAMA_HOST_ENV) or DEFAULT_OLLAMA_HOST
    return host if "://" in host else f"http://{host}"


def parse_llm(spec: str | None) -> LLMSpec:
    """`none`, `ollama:MODEL` or `openai:URL#MODEL` -> LLMSpec (ClausegraphError if malformed)."""
    spec = (spec or "none").strip()
    if spec == "none":
        return LLMSpec()
    backend, _, rest = spec.partition(":")
    if backend == "ollama" and rest:
        return LLMSpec(backend=Backend.OLLAMA, model=rest, url=ollama_host())
    if backend == "openai" and "#" in rest:
        url, _, model = rest.rpartition("#")
        if url and model:
            return LLMSpec(backend=Backend.OPENAI, model=model, url=url)
    raise ClausegraphError(f"unknown model backend {spec!r}: use none, ollama:MODEL or openai:URL#MODEL")


@dataclass(frozen=True)
class LocalModel:
    """A configured local model: what the user chose, and the LlamaIndex LLM that talks to it."""

    spec: LLMSpec
    llm: Any


def local_model(spec: LLMSpec, max_answer_tokens: int) -> LocalModel | None:
    """The model a spec names, or None for `none` (rules and extractive answers)."""
    llm = make_llm(spec, max_answer_tokens)
    return None if llm is None else LocalModel(spec, llm)


def make_llm(spec: LLMSpec, max_answer_tokens: int):
    """The LlamaIndex LLM for a spec, or None for `none`."""
    if spec.backend is Backend.OLLAMA:
        from llama_index.llms.ollama import Ollama

        return Ollama(
            model=spec.model, base_url=spec.url, request_timeout=spec.timeout, context_window=8192,
            additional_kwargs={"num_predict": max_answer_tokens},
        )
    if spec.backend is Backend.OPENAI:
        from llama_index.llms.openai_like import OpenAILike

        return OpenAILike(
            model=spec.model, api_base=spec.url, api_key="local", is_chat_model=True, timeout=spec.timeout, context_window=8192,
            max_tokens=max_answer_tokens,
        )
    return None


class HostStatus(BaseModel):
    """What a model host answered when asked for its models."""

    url: str
    reachable: bool
    models: list[str] = []
    error: str | None = None


def host_status(spec: LLMSpec, timeout: float = 3.0) -> HostStatus:
    """Ask the configured host (and only it) which models it serves: Ollama's /api/tags, or an
    OpenAI-compatible server's /models."""
    if spec.backend is Backend.NONE or not spec.url:
        return HostStatus(url="", reachable=False, error="no model host configured")
    base = spec.url.rstrip("/")
    address = f"{base}/api/tags" if spec.backend is Backend.OLLAMA else f"{base}/models"
    try:
        with urllib.request.urlopen(address, timeout=timeout) as response:  # noqa: S310 (the user's own local host)
            body = json.loads(response.read().decode("utf-8"))
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", None) or error
        return HostStatus(url=spec.url, reachable=False, error=str(reason))
    if spec.backend is Backend.OLLAMA:
        names = [m.get("name") or m.get("model", "") for m in body.get("models", [])]
    else:
        names = [m.get("id", "") for m in body.get("data", [])]
    return HostStatus(url=spec.url, reachable=True, models=sorted(n for n in names if n))
