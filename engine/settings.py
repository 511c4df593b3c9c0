"""Every tunable number of the engine, in one nested Settings, loaded from a named preset.

The values live in preset files (`engine/presets/NAME.json`); this module says what each one
means and why it exists, and checks its range. A preset may name another it `extends` and
change only what differs. `Settings()` is the `default` preset; `Settings(preset="NAME")`
another; keyword arguments override single values (`Settings(retrieval={"budget": 4000})`).
`fingerprint()` names the exact numbers an evaluation ran with, so every output records it.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.errors import ClausegraphError
from engine.store.location import StoreLocation

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_STORE = PROJECT_ROOT / "data" / "store"
SAMPLES_DIR = PROJECT_ROOT / "data" / "samples"
PRESETS_DIR = Path(__file__).with_name("presets")
STORE_ENV = "CLAUSEGRAPH_DB"
DEFAULT_PRESET = "default"


def store_location(explicit: str | Path | StoreLocation | None = None) -> StoreLocation:
    """Where the store lives: --db, else $CLAUSEGRAPH_DB, else data/store; a folder, a
    `file://` URL or an `s3://BUCKET/PREFIX` URL, anything else refused (location.py)."""
    if isinstance(explicit, StoreLocation):
        return explicit
    return StoreLocation.model_validate(str(explicit or os.environ.get(STORE_ENV) or DEFAULT_STORE))


class _Section(BaseModel):
    """A group of settings: every field is required, so a preset states every value it uses."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class IngestSettings(_Section):
    embedding_model: str = Field(description="the sentence-transformers model carried by a PyPI package, loaded offline")
    vectors: Literal["progressive", "full", "quick"] = Field(
        description="progressive: quick static vectors at ingest (searchable in seconds), MiniLM's follow in the "
        "background; full: MiniLM's at ingest (slower to become searchable); quick: static vectors only "
        "(fastest, for large libraries; lower recall, see bench/ingest.py)"
    )
    embed_batch_size: int = Field(ge=1, description="texts per encode call; 32 measured as fast as 64-256 on 2 cores")
    window_overlap_tokens: int = Field(ge=0, description="tokens shared by consecutive windows of a long clause, so no sentence is cut blind")


class LimitSettings(_Section):
    # The app's uploader stops larger files itself (.streamlit/config.toml, kept equal by a test);
    # the engine checks the size again, before reading a file, for the command line.
    max_upload_mb: int = Field(ge=1, description="largest file ingested, in MB")
    max_pages: int = Field(ge=1, description="most pages a PDF may have to be ingested")
    answer_each: int = Field(ge=1, description="a question over up to this many contracts is answered for each of them; over more, from the best matches")
    listing_cited: int = Field(
        ge=1, description="a \"which contracts...\" listing cites this many contracts at once; the rest when asked (tens of ms each)"
    )


class RetrievalSettings(_Section):
    """Weights and budgets; the starting values came from the clause-graph literature, tuned on dev data."""

    budget: int = Field(ge=1, description="context size in normalised characters")
    graph_share: float = Field(ge=0, le=1, description="part of the budget kept for graph-found clauses so weaker anchors cannot rank them out")
    lead_chars: int = Field(
        ge=0, description="the learned ranking's first characters of a context, ordered for the clause that answers; the rest is "
        "ordered for what a multi-hop answer needs when the ranker has a support reading (engine/query/reading.py's reading_order)"
    )
    pool: int = Field(ge=1, description="results taken from each search arm")
    large_scope_contracts: int = Field(
        ge=1, description="over more contracts than limits.answer_each, only the contracts of the best search hits (at most "
        "this many) are loaded and searched with the clause graph: the rest are never read into memory"
    )
    walk_from: int = Field(ge=0, description="anchors the graph walk starts from")
    hops: int = Field(ge=0, le=3, description="edges the walk follows from an anchor")
    references: float = Field(description="edge weight of a cross-reference, followed to the clause cited")
    defines: float = Field(description="edge weight from a clause to the definition of a term it uses")
    parent_of: float = Field(description="edge weight of the clause tree (up to the enclosing clause, down into a thin one)")
    cited_by: float = Field(description="edge weight of a cross-reference walked backwards: the clause citing the anchor")
    term_users: float = Field(description="edge weight from a definition to the clauses using its term (weak: many use it)")
    decay: float = Field(gt=0, le=1, description="structure score lost per hop")
    w_sem: float = Field(description="weight of the question's similarity in a graph-found clause's score")
    w_struct: float = Field(description="weight of the path's structure in a graph-found clause's score")
    min_graph_score: float = Field(description="graph-found clauses scoring less are dropped")
    min_structure: float = Field(description="weaker links than this never bring a clause in")
    thin_chars: int = Field(ge=0, description="a clause shorter than this is mostly a heading for its parts")
    thick_parent: float = Field(description="down-weighting of the parts of a clause with content of its own")
    followers: list[int] = Field(min_length=1, description="graph-found clauses placed after the 1st, 2nd, ... anchor")
    trim_chars: int = Field(ge=1, description="longer anchor clauses are cut to their best window")
    follower_chars: int = Field(ge=1, description="graph-found clauses longer than this are cut to their best window")
    topic_weight: float = Field(description="share of a search arm the clause-type ranking counts for")
    category_weight: float = Field(
        ge=0, description="share of a search arm the clause-model ranking (the question's likely categories) counts for"
    )
    definitions_used: bool = Field(
        description="the definition of every term a walk's starting anchor uses is a candidate, however many clauses use the term "
        "(the learned ranker weighs it), except the terms that name a party"
    )
    chain_definitions: bool = Field(description="a definition using another defined term brings that one at no extra hop")
    definition_chains_used: bool = Field(
        description="with definitions_used, the definitions of the terms those definitions use are candidates too, down the chain "
        "('Territory' means ... the Field, where 'Field' is defined apart), whatever their edges weigh",
    )
    query_adapter: bool = Field(
        description="the vector arm searches with the question's vector moved by the learnt query adapter (engine/query/query_adapter.py) toward the clauses that answer such questions, as far as the question model is sure of the question's category"
    )
    window_keyword_weight: float = Field(description="weight of the question's words when choosing a long clause's window")
    heading_boost: float = Field(description="BM25 weight of a word in a heading beside one in the text")
    expansion_boost: float = Field(description="BM25 weight of a contract synonym beside the question's own word")
    rrf_k: float = Field(gt=0, description="reciprocal-rank constant (LlamaIndex's fusion uses 60) for the clause-type share")
    category_min: float = Field(ge=0, le=1, description="a category the question model gives at least this probability steers the search")
    ranking: Literal["formula", "learned"] = Field(
        description="graph mode's order of candidates: the hand-set walk formula and tiers, or the learned ranker (engine/query/rank.py)"
    )
    listing_category_min: float = Field(
        ge=0, le=1, description="a request over several contracts is answered from the presence flags of a category this likely"
    )
    lexicon_words: int = Field(ge=0, description="words of a recognised category's lexicon searched beside the question's own")


class AbstainSettings(_Section):
    """A model over the abstain features and the threshold chosen for it on dev questions:
    boosted trees when `trees` names their file, else the logistic weights; written by
    `bench/calibrate_abstain.py --write`."""

    trees: str | None = Field(description="boosted-trees file in engine/answer/ that decides (null: the logistic weights decide)")
    weights: dict[str, float] = Field(description="feature -> logistic weight")
    bias: float = Field(description="logistic intercept")
    threshold: float = Field(ge=0, le=1, description="below this probability of support the answer is 'Not found'")
    nda_threshold: float | None = Field(
        ge=0, le=1, description="the threshold for a question about an NDA's terms when it differs from `threshold` (null: `threshold`)"
    )
    fitted_on: str = Field(description="the question file the model was fitted on")
    top_passages: int = Field(ge=1, description="passages whose clauses the features look at")


class EvidenceSettings(_Section):
    heading_share: float = Field(description="credit a sentence gets from a heading that names the topic")
    rank_share: float = Field(description="how much the retriever's own ranking counts next to word coverage")
    min_words: int = Field(ge=1, description="shorter sentences are not candidates for a quote")
    expansion_weight: float = Field(description="weight of a contract synonym among the question's words")


class ExtractiveSettings(_Section):
    max_main: int = Field(ge=1, description="clauses whose best sentence answers")
    max_support: int = Field(ge=0, description="definitions and referenced sections quoted beside them")
    complement_gain: float = Field(description="share of the question's word weight a further sentence must add")
    complement_ranks: int = Field(ge=0, description="passages a complementing sentence may come from")
    support_depth: int = Field(ge=0, description="a definition quoted inside a quoted definition is followed this many times")
    max_quote_chars: int = Field(ge=1, description="longest quote; a longer sentence is cut at a word")
    list_chars: int = Field(
        ge=0, description="a quote that opens a list ('... may terminate this Agreement if:') is followed by its items, up to this many characters"
    )
    lead_probability: float = Field(ge=0, le=1, description="how sure of the category the question model must be for it to choose the first quote")
    lead_ranks: int = Field(ge=1, description="passages the first quote may come from when the category chooses it")
    lead_tie: float = Field(
        ge=0, le=1, description="passages whose ranking probabilities differ by at most this are equally likely: the question's own words choose the first quote among them"
    )
    quote_citing: bool = Field(
        description="a clause the walk reached because it cites one the search found ('the undertakings in clauses 3 and 4 "
        "will continue in force...') may state the answer, not only support it"
    )


class AnswerSettings(_Section):
    abstain: AbstainSettings
    evidence: EvidenceSettings
    extractive: ExtractiveSettings
    closest: int = Field(ge=0, description="clauses an abstention shows the reader to check")
    excerpt_chars: int = Field(ge=1, description="length of each of those clauses' excerpts")
    hit_quote_chars: int = Field(ge=1, description="a search hit highlights its opening, not a whole long section")


class LLMSettings(_Section):
    max_answer_tokens: int = Field(ge=1, description="an answer is a few claims; a model that rambles is cut off, not waited for")
    max_passages: int = Field(ge=1, description="numbered passages a model is shown")
    max_passage_chars: int = Field(ge=1, description="each passage is cut to this length for the model")
    plan_terms_shown: int = Field(ge=0, description="defined terms listed to a planning model")


class Settings(BaseModel):
    """The engine's settings: a preset's values, with any single value overridden."""

    model_config = ConfigDict(extra="forbid")

    preset: str = Field(default=DEFAULT_PRESET, description="the preset file these values came from")
    store: StoreLocation = Field(default_factory=store_location, description="where the store lives (not part of the fingerprint)")
    ingest: IngestSettings
    limits: LimitSettings
    retrieval: RetrievalSettings
    answer: AnswerSettings
    llm: LLMSettings

    @model_validator(mode="before")
    @classmethod
    def _from_preset(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        name = data.get("preset") or DEFAULT_PRESET
        return _merge(load_preset(name), data) | {"preset": name}

    def fingerprint(self) -> str:
        """A short hash of every value that changes results (not the preset's name or the store's place)."""
        values = self.model_dump(mode="json", exclude={"preset", "store"})
        canonical = json.dumps(values, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:12]


class PresetError(ClausegraphError):
    """A preset that cannot be loaded. Not a ValueError, so pydantic passes it through as it is
    and the CLI and the app show its message like any other user error."""


def overrides(assignments: list[str]) -> dict:
    """`["retrieval.category_weight=0.5", ...]` as nested values to lay over a preset: how a
    benchmark tries one value without writing a preset file. Values are read as JSON."""
    values: dict = {}
    for assignment in assignments:
        path, equals, raw = assignment.partition("=")
        if not equals or not path.strip():
            raise PresetError(f"a setting is given as SECTION.NAME=VALUE, not {assignment!r}")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        *sections, name = path.strip().split(".")
        target = values
        for section in sections:
            target = target.setdefault(section, {})
        target[name] = value
    return values


def presets() -> list[str]:
    """The preset names there are files for."""
    return sorted(p.stem for p in PRESETS_DIR.glob("*.json"))


@lru_cache(maxsize=16)
def _preset_file(name: str) -> dict:
    path = PRESETS_DIR / f"{name}.json"
    if not path.is_file():
        raise PresetError(f"no preset named {name!r}; the presets are: {', '.join(presets())}")
    return json.loads(path.read_text())


def load_preset(name: str, _seen: tuple[str, ...] = ()) -> dict:
    """A preset's values, with those of the preset it extends underneath."""
    if name in _seen:
        raise PresetError(f"preset {name!r} extends itself through {' -> '.join(_seen)}")
    values = dict(_preset_file(name))
    base = values.pop("extends", None)
    return _merge(load_preset(base, (*_seen, name)), values) if base else values


def _merge(base: dict, override: dict) -> dict:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, BaseModel):
            value = value.model_dump()
        merged[key] = _merge(merged[key], value) if isinstance(value, dict) and isinstance(merged.get(key), dict) else value
    return merged
