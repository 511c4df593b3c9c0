"""The answer to a retrieval: a local model's claims when one is configured and reachable,
else the extractive answer; either way every quote passes the citation check.

The abstain decision runs first, on retrieval features calibrated on cuad_dev; a model may
abstain too ("not_stated"). A model's claim is shown only if every quote it gives passes.
When no claim of a model's survives the check, it is asked once more with the failed quotes
named; if that fails as well, or the model is unreachable or answers out of schema, the
extractive answer stands in, with a note saying so. When a quote that states the answer holds
a redaction ("a royalty of [***]%"), a note says the filing left that part out: the figure asked
for may be the one the filing withholds.
"""

from __future__ import annotations

import logging
import re

from engine.answer.abstain import decide
from engine.answer.citations import Citer
from engine.answer.evidence import Evidence, Likeness
from engine.answer.extractive import Extract, extract, looked_for
from engine.answer.generate import Checked, DraftError, TextCallback, check, context_passages, draft, messages
from engine.answer.lead import LeadModel, lead_model
from engine.llm import Backend, LocalModel
from engine.settings import Settings
from engine.store.graphcache import DocGraph
from models.answer import Answer, BackendKind, Citation, Claim, Closest, Trail, section_name, stating_numbers
from models.retrieval import Passage, Retrieval

log = logging.getLogger(__name__)

#: how filings mark what they withhold: "[***]", "*****", "[*]", "[Redacted]", "[omitted]"
REDACTION = re.compile(r"\*{3,}|\[[\s.*]*\*[\s.*]*\]|\[\s*(?:redacted|omitted)\s*\]", re.IGNORECASE)


class Answerer:
    """Answers a retrieval's question from its passages, citing through `citer`; `meaning`
    tells how close a sentence is to the question for the model that chooses the first quote
    (`lead`, the shipped one by default; a benchmark swaps in a fold's)."""

    def __init__(self, citer: Citer, meaning: Likeness | None = None) -> None:
        self.citer = citer
        self.meaning = meaning
        self.lead: LeadModel | None = lead_model()

    def answer(
        self,
        retrieval: Retrieval,
        graphs: list[DocGraph],
        settings: Settings,
        model: LocalModel | None = None,
        on_text: TextCallback | None = None,
    ) -> Answer:
        """The answer to a retrieval's question from its passages; `graphs`: the ones it searched;
        `model`: the local model that writes the answer (None: the extractive answer);
        `on_text` receives a model's draft as it streams."""
        evidence = Evidence.gather(retrieval, graphs, settings.answer, self.meaning)
        abstain, support = decide(evidence)
        if abstain:
            answer = self._abstention(evidence, support, BackendKind.EXTRACTIVE, None, [])
        elif model is None:
            answer = self._extractive(evidence, support, [])
        else:
            answer = self._generative(evidence, support, model, settings, on_text)
        return answer.model_copy(update={"trail": [_trail(p) for p in retrieval.passages]})

    # ------------------------------------------------------------ backends

    def _extractive(self, evidence: Evidence, support: float, notes: list[str]) -> Answer:
        found = extract(evidence, self.citer, self.lead)
        if not found.citations:
            return self._abstention(evidence, support, BackendKind.EXTRACTIVE, None, notes + ["no sentence could be quoted"])
        return _answer(
            evidence, support, BackendKind.EXTRACTIVE, None, notes,
            abstained=False, lead=_lead(found, len(evidence.graphs) > 1), claims=found.claims, citations=found.citations,
        )

    def _generative(self, evidence: Evidence, support: float, model: LocalModel, settings: Settings, on_text: TextCallback | None) -> Answer:
        spec, llm = model.spec, model.llm
        kind = BackendKind.OLLAMA if spec.backend is Backend.OLLAMA else BackendKind.OPENAI
        question = evidence.retrieval.plan.question
        passages = context_passages(evidence, settings.llm)
        notes: list[str] = []
        failed: list[str] | None = None
        for attempt in (1, 2):
            try:
                reply = draft(llm, spec, messages(question, passages, settings.llm, failed), on_text)
            except DraftError as error:
                notes.append(f"{spec.model} answered out of schema: {error}; extractive answer instead")
                return self._extractive(evidence, support, notes)
            except Exception as error:  # unreachable host, timeout, server error
                log.warning("answer model unavailable: %s", error)
                notes.append(f"{spec.model} could not be reached ({type(error).__name__}); extractive answer instead")
                return self._extractive(evidence, support, notes)
            if reply.verdict == "not_stated":
                return self._abstention(evidence, support, kind, spec.model, notes + [f"{spec.model}: not stated in these passages"])
            checked = check(reply, passages, evidence, self.citer)
            if checked.failed:
                notes.append(f"dropped {len(checked.failed)} quote(s) not found verbatim in the cited clause: " + "; ".join(f"“{q[:80]}”" for q in checked.failed))
            if checked.dropped:
                notes.append(f"left out {checked.dropped} claim(s) of {spec.model} not backed wholly by verbatim quotes")
            if checked.claims:
                return self._generated(evidence, support, kind, spec.model, checked, notes)
            failed = checked.failed or ["(no quote given)"]
            if attempt == 1:
                notes.append("retried once with a stricter prompt")
        notes.append("no quote survived the check; extractive answer instead")
        return self._extractive(evidence, support, notes)

    def _generated(self, evidence: Evidence, support: float, kind: BackendKind, model: str | None, checked: Checked, notes: list[str]) -> Answer:
        refs = ", ".join(dict.fromkeys(section_name(c.ref) for c in checked.citations))
        return _answer(
            evidence, support, kind, model, notes,
            abstained=False, lead=f"From {refs}:", claims=checked.claims, citations=checked.citations,
        )

    def _abstention(self, evidence: Evidence, support: float, kind: BackendKind, model: str | None, notes: list[str]) -> Answer:
        scope = "the selected contract does" if len(evidence.graphs) == 1 else "the selected contracts do"
        closest = []
        for passage in _closest_passages(evidence.retrieval.ranked_passages(), evidence.settings.closest):
            document = evidence.graphs[passage.doc_id].document
            best = evidence.best(passage)
            citation = self.citer.cite_span(best.clause, best.start, best.end) if best else None
            closest.append(
                Closest(
                    doc_id=passage.doc_id, file_name=document.file_name, clause_id=passage.clause_id, ref=passage.ref,
                    heading=passage.heading, page=passage.page, excerpt=excerpt(passage.text, evidence.settings.excerpt_chars),
                    citation=citation.model_copy(update={"number": len(closest) + 1}) if citation else None,
                )
            )
        return _answer(
            evidence, support, kind, model, notes,
            abstained=True, lead=f"Not found: {scope} not appear to answer this. Looked for {looked_for(evidence)}.", closest=closest,
        )


def _answer(evidence: Evidence, support: float, kind: BackendKind, model: str | None, notes: list[str], **content) -> Answer:
    """An Answer with what every backend fills the same way; `content`: abstained, lead and
    the claims and citations, or the closest clauses."""
    notes = notes + redaction_notes(content.get("claims", []), content.get("citations", []))
    return Answer(
        question=evidence.retrieval.plan.question, backend=kind, model=model, support=round(support, 3), notes=notes,
        plan=evidence.retrieval.plan, **content,
    )


def redaction_notes(claims: list[Claim], citations: list[Citation]) -> list[str]:
    """A note when a quote that states the answer holds a redaction. A filed contract marks what
    it withholds with "[***]", easily read past in a long quote; the figure the question asks
    for is often the one withheld, and the answer cannot give it."""
    stating = stating_numbers(claims)
    redacted = [c for c in citations if c.number in stating and REDACTION.search(c.quote)]
    if not redacted:
        return []
    places = "; ".join(dict.fromkeys(f"{section_name(c.ref)}, page {c.page}" for c in redacted))
    return [f"The filing withholds part of the quoted text ({places}): what it marks as redacted is not in the document."]


def _trail(passage: Passage) -> Trail:
    why = passage.why
    return Trail(
        doc_id=passage.doc_id, clause_id=passage.clause_id, ref=passage.ref, heading=passage.heading, page=passage.page,
        how=why.describe(), edge=why.edge if why.kind == "graph" else None, via_ref=why.via_ref,
    )


def _closest_passages(passages: list[Passage], count: int) -> list[Passage]:
    """The top clauses the search found itself, before what the graph walk added around them:
    three different places to look beat three sub-clauses of one."""
    anchors = [p for p in passages if p.why.kind != "graph"]
    followers = [p for p in passages if p.why.kind == "graph"]
    return (anchors + followers)[:count]


def _lead(found: Extract, name_files: bool) -> str:
    first = found.citations[0]
    heading = f" ({first.heading})" if first.heading and first.heading not in first.ref else ""
    where = f"{section_name(first.ref)}{heading}, page {first.page}"
    if name_files:
        where += f" of {first.file_name}"
    extra = list(dict.fromkeys(relation for _, relation in found.support))
    by_number = {c.number: c for c in found.citations}
    # the clauses the stating claims quote; the items of a list a quote opens are parts of its clause
    others = len({by_number[claim.citations[0]].clause_id for claim in found.claims if not claim.more}) - 1
    lead = f"Found in {where}"
    if others > 0:
        lead += f" and {others} other clause{'s' if others > 1 else ''}"
    if extra:
        lead += ", with " + "; ".join(extra)
    return lead + "."


def excerpt(text: str, chars: int) -> str:
    """A closest clause's text as the reader first sees it: one line, cut at a word."""
    text = " ".join(text.split())
    return text if len(text) <= chars else text[: text.rfind(" ", 0, chars)] + " …"
