"""The answer with no language model: the contract's own sentences, each cited.

It picks the sentences that best cover the question from the top clauses (a first quote that
announces a list, with its items: engine/answer/lists.py), then adds what those sentences lean
on: the definition of a term they use and the section they refer to, when the graph walk
brought those in. A one-line lead says where the answer was found.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from engine.answer.citations import Citer
from engine.answer.evidence import Evidence, Sentence
from engine.answer.lead import LeadModel
from engine.answer.lists import list_end, listed_parts
from engine.answer.question_words import contract_fact
from engine.text.matching import sentence_spans, stems
from models.answer import Citation, Claim, section_name
from models.edge import EdgeType
from models.retrieval import Passage, Why

@dataclass
class Extract:
    claims: list[Claim]
    citations: list[Citation]
    main: list[Sentence]
    support: list[tuple[Passage, str]]  # (passage, how it relates: "definition of “X”" or "Section 8.2, cited")


def extract(evidence: Evidence, citer: Citer, lead: LeadModel | None = None) -> Extract:
    """The cited sentences; how many and how long: `evidence.settings.extractive`. The claims
    that state the answer come first; the rest is more evidence, folded under them. `lead` (the
    model of engine/answer/lead.py) may choose another first quote than the rules'."""
    settings = evidence.settings.extractive
    main = _main_sentences(evidence, lead)
    result = Extract(claims=[], citations=[], main=[], support=[])
    fact = contract_fact(evidence.retrieval.plan.question)
    if fact is not None:
        for clause, start, end in _front_page(evidence, fact, settings.max_main, settings.max_quote_chars):
            citation = citer.cite_span(clause, start, end)
            if citation is not None:
                _add(result, citation, f"{_where(citation)}:")
    for position, sentence in enumerate(main):
        listed = settings.list_chars if position == 0 else 0  # the answer's list; further quotes stay short
        end = list_end(sentence.clause.text, quote_end(sentence, settings.max_quote_chars), listed)
        citation = citer.cite_span(sentence.clause, sentence.start, end)
        if citation is not None:
            result.main.append(sentence)
            stating = position == 0 or _states_answer(evidence, sentence, main[0])
            items = [c for part, start, stop in listed_parts(evidence.graphs, sentence.clause, end, listed) if (c := citer.cite_span(part, start, stop))]
            _add(result, citation, f"{_where(citation)}:", more=not stating, items=items)
    for passage, relation, start, end in _supporting(evidence, result.main):
        if len(result.support) >= settings.max_support:
            break
        clause = evidence.clause(passage.doc_id, passage.clause_id)
        citation = citer.cite_span(clause, start, end) if clause else None
        if citation is not None:
            result.support.append((passage, relation))
            _add(result, citation, f"{relation[0].upper()}{relation[1:]} ({_where(citation)}):", more=True)
    return _stating_first(result)


def _add(result: Extract, citation: Citation, prefix: str, more: bool = False, items: Sequence[Citation] = ()) -> None:
    """One claim: the quote, and the items of the list it opens (`listed_parts`), each cited."""
    if _cited(result, citation):
        return
    quotes = [citation, *(item for item in items if not _cited(result, item))]
    first = len(result.citations) + 1
    result.citations += [quote.model_copy(update={"number": first + k}) for k, quote in enumerate(quotes)]
    text = " ".join(f"“{quote.quote}”" for quote in quotes)
    result.claims.append(Claim(text=f"{prefix} {text}", citations=list(range(first, first + len(quotes))), more=more))


def _cited(result: Extract, citation: Citation) -> bool:
    """Is the quote already cited, or inside a quote already cited (an item of a list quoted whole)?"""
    return any(c.clause_id == citation.clause_id and c.char_start <= citation.char_start and citation.char_end <= c.char_end for c in result.citations)


def _stating_first(result: Extract) -> Extract:
    """The claims that state the answer, then the more-evidence ones, citations renumbered in that order."""
    claims = [c for c in result.claims if not c.more] + [c for c in result.claims if c.more]
    by_number = {c.number: c for c in result.citations}
    order = [number for claim in claims for number in claim.citations]
    renumber = {old: new for new, old in enumerate(order, start=1)}
    result.claims = [c.model_copy(update={"citations": [renumber[n] for n in c.citations]}) for c in claims]
    result.citations = [by_number[old].model_copy(update={"number": renumber[old]}) for old in order]
    return result


def _where(citation: Citation) -> str:
    heading = f" ({citation.heading})" if citation.heading and citation.heading not in citation.ref else ""
    return f"{section_name(citation.ref)}{heading}, page {citation.page}"


def quote_end(sentence: Sentence, max_chars: int) -> int:
    """End of the quote: a run-on "sentence" (a whole list, a table) is cut at a word."""
    if sentence.end - sentence.start <= max_chars:
        return sentence.end
    cut = sentence.clause.text.rfind(" ", sentence.start, sentence.start + max_chars)
    return cut if cut > sentence.start else sentence.end


def _main_sentences(evidence: Evidence, lead: LeadModel | None) -> list[Sentence]:
    """The best sentence of each of the retriever's top clauses, in its order, then the one
    sentence that answers the part of the question those leave out. `lead` may put another
    sentence first; after the first, a clause that shares no word with the question is passed
    over."""
    candidates = main_candidates(evidence)
    ordered = rules_order(evidence, candidates)
    if lead is not None and ordered:
        ordered = _led_by(lead.choose(evidence, candidates, ordered[0]), ordered)
    chosen = (ordered[:1] + [s for s in ordered[1:] if _relevant(evidence, s, ordered[0])])[: evidence.settings.extractive.max_main]
    complement = _complement(evidence, chosen, candidates)
    return chosen + ([complement] if complement is not None else [])


def main_candidates(evidence: Evidence) -> list[Sentence]:
    """The sentences that may state the answer: those of the clauses the search found, of their
    parts and (`quote_citing`) of the clauses citing them, which often qualify them ("the
    undertakings in clauses 3 and 4 will continue in force..." answers how long they last); a
    definition or a cited section the walk added supports a quote, it is not one."""
    citing = evidence.settings.extractive.quote_citing
    return [s for s in evidence.sentences if _may_state(s.passage.why, citing)]


def _may_state(why: Why, citing: bool) -> bool:
    return why.kind != "graph" or why.edge == "PARENT_OF" or (citing and _cites_a_found_clause(why))


def _cites_a_found_clause(why: Why) -> bool:
    return why.kind == "graph" and why.edge == "REFERENCES" and why.direction == "in"


def rules_order(evidence: Evidence, candidates: list[Sentence]) -> list[Sentence]:
    """The rules' quotes: the best sentence of each clause in the retriever's order, led by the
    question's category when the question model is sure of it.

    The retriever's order leads, not word overlap: it ranked with the clause type and the
    graph in view, which a sentence's words cannot show (a governing-law clause need not say
    "govern").
    """
    best: dict[str, Sentence] = {}
    for sentence in candidates:
        held = best.get(sentence.passage.clause_id)
        if held is None or sentence.score > held.score:
            best[sentence.passage.clause_id] = sentence
    ordered = sorted(best.values(), key=lambda s: s.rank)
    return _led_by(_category_lead(evidence, candidates), ordered)


def _led_by(first: Sentence | None, ordered: list[Sentence]) -> list[Sentence]:
    """`ordered` with `first` moved to the front, in place of its clause's own best sentence."""
    if first is None:
        return ordered
    return [first] + [s for s in ordered if s.passage.clause_id != first.passage.clause_id]


def _relevant(evidence: Evidence, sentence: Sentence, first: Sentence) -> bool:
    """A further quote earns its place: it is of a category the question is likely about, or it
    covers the question's words at least half as well as the first quote does (as well as the
    first, when the question model is fairly sure what the question is about: then a clause of
    another kind that shares a word with the question, such as employer's liability insurance
    beside a liability cap, is not evidence of it)."""
    if sentence.coverage <= 0:
        return False
    if _of_likely_category(evidence, sentence):
        return True
    return sentence.coverage >= (1.0 if _likely_categories(evidence) else 0.5) * first.coverage


def _states_answer(evidence: Evidence, sentence: Sentence, first: Sentence) -> bool:
    """Whether a further quote states the answer rather than surrounding it: when the question
    model is fairly sure what the question is about, it must be of that category; else it must
    cover the question's words at least half as well as the first quote does."""
    if _likely_categories(evidence):
        return _of_likely_category(evidence, sentence)
    return sentence.coverage >= 0.5 * first.coverage


def _likely_categories(evidence: Evidence) -> list[str]:
    """The categories the question model gives at least half the first quote's lead probability."""
    floor = evidence.settings.extractive.lead_probability / 2
    return [g.category for g in evidence.retrieval.plan.categories if g.probability >= floor]


def _of_likely_category(evidence: Evidence, sentence: Sentence) -> bool:
    return any(evidence.is_of_category(sentence, category) for category in _likely_categories(evidence))


def _category_lead(evidence: Evidence, candidates: list[Sentence]) -> Sentence | None:
    """The first quote, when the question model is sure of the category and the presence
    classifier finds a sentence of it among the top passages: the best-ranked such sentence.
    The question's words need not be in it ("can it be handed to someone else?" is answered
    by "neither party may assign..."); only among passages the ranker holds equally likely
    (`lead_tie`) does the one saying more of the question's own words lead."""
    settings = evidence.settings.extractive
    guesses = evidence.retrieval.plan.categories
    if not guesses or guesses[0].probability < settings.lead_probability:
        return None
    category = guesses[0].category
    found = [s for s in candidates if s.rank < settings.lead_ranks and evidence.is_of_category(s, category)]
    if not found:
        return None
    best = min(found, key=lambda s: (s.rank, -evidence.category_score(s, category)))
    # the ranker cannot tell these passages apart: what the question itself says chooses
    # ("the liability cap": the clause limiting liability, not the one excluding lost profits)
    tied = [s for s in found if s.passage.score >= best.passage.score - settings.lead_tie]
    own = evidence.own_words
    return max(tied, key=lambda s: (own.coverage(stems(s.text)), -s.rank, evidence.category_score(s, category)))


def _complement(evidence: Evidence, chosen: list[Sentence], candidates: list[Sentence]) -> Sentence | None:
    """The sentence adding most of the question's words the chosen ones lack, when it adds enough."""
    settings = evidence.settings.extractive
    covered = set().union(*(stems(s.text) for s in chosen))
    base = evidence.words.coverage(covered)
    gains = [
        (evidence.words.coverage(covered | stems(s.text)) - base, s)
        for s in candidates
        if s.rank < settings.complement_ranks and s not in chosen
    ]
    gain, sentence = max(gains, key=lambda g: (g[0], g[1].score), default=(0.0, None))
    return sentence if gain >= settings.complement_gain else None


_DATE = re.compile(r"\b(?:19|20)\d\d\b|\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\b", re.I)
_EFFECTIVE = re.compile(r"\beffective\b", re.I)
_BETWEEN = re.compile(r"\b(?:between|among|by and between)\b", re.I)


def _front_page(evidence: Evidence, fact: str, contracts: int, max_chars: int):
    """Where a contract states its title, parties or date: its first page's opening clauses
    (of the first `contracts` in scope)."""
    for graph in list(evidence.graphs.values())[:contracts]:
        opening = sorted((c for c in graph.clauses if c.page_start == 1), key=lambda c: c.order)[:3]
        for clause in opening:
            span = _front_span(clause.text, fact, max_chars)
            if span is not None:
                yield clause, *span
                break


def _front_span(text: str, fact: str, max_chars: int) -> tuple[int, int] | None:
    if fact == "title":  # the first line, and the next one too if the first is a word or two
        lines = [line for line in text.splitlines() if line.strip()][:2]
        end = text.find(lines[0]) + len(lines[0]) if lines else 0
        if lines and len(lines[0].split()) < 3 and len(lines) > 1:
            end = text.find(lines[1], end) + len(lines[1])
        return (0, end) if end else None
    wanted = {"date": [_DATE], "effective": [_EFFECTIVE, _DATE]}.get(fact, [_BETWEEN])
    spans = sentence_spans(text)
    for pattern in wanted:
        for start, end in spans:
            if pattern.search(text, start, end):
                return start, min(end, start + max_chars)
    return None


@dataclass
class _Quoted:
    doc_id: str
    ref: str
    text: str


def _supporting(evidence: Evidence, main: list[Sentence]):
    """What the quoted sentences lean on: the definitions of terms they use and the sections
    they cite, then what those quotes lean on in turn (a term defined by another term).

    Followers the quoted words name come first; followers of the same clauses that the quote
    does not name follow, best match to the question first.
    """
    seen = {s.passage.clause_id for s in main}
    named: list[tuple[Passage, str, int, int]] = []
    unnamed: list[tuple[float, Passage, str, int, int]] = []
    for passage, relation, start, end in _cited_by_quotes(evidence, main):
        if passage.clause_id not in seen:
            seen.add(passage.clause_id)
            named.append((passage, relation, start, end))
    frontier = [_Quoted(s.passage.doc_id, s.clause.ref, s.text) for s in main]
    for depth in range(evidence.settings.extractive.support_depth):
        reached: list[_Quoted] = []
        for quoted in frontier:
            for passage, relation, start, end in _followers(evidence, quoted):
                if passage.clause_id in seen:
                    continue
                clause = evidence.clause(passage.doc_id, passage.clause_id)
                text = clause.text[start:end]
                if _names(quoted.text, passage.why.label):
                    seen.add(passage.clause_id)
                    named.append((passage, relation, start, end))
                    reached.append(_Quoted(passage.doc_id, clause.ref, text))
                elif depth == 0:
                    unnamed.append((evidence.words.coverage(stems(text)), passage, relation, start, end))
        frontier = reached
    yield from named
    for _, passage, relation, start, end in sorted(unnamed, key=lambda u: -u[0]):
        if passage.clause_id not in seen:
            seen.add(passage.clause_id)
            yield passage, relation, start, end


def _cited_by_quotes(evidence: Evidence, main: list[Sentence]):
    """For a quoted clause the walk reached because it cites a clause the search found ("the
    undertakings in clauses 3 and 4 will continue in force"), the clauses it cites that the
    context holds, in reading order: what it qualifies."""
    passages = {(p.doc_id, p.clause_id): p for p in evidence.retrieval.ranked_passages()}
    for sentence in main:
        why, doc_id = sentence.passage.why, sentence.passage.doc_id
        graph = evidence.graphs.get(doc_id)
        if graph is None or not _cites_a_found_clause(why):
            continue
        cited = [e.dst for e in graph.out_edges.get(sentence.passage.clause_id, []) if e.type is EdgeType.REFERENCES]
        for passage in sorted((passages[doc_id, c] for c in set(cited) if (doc_id, c) in passages), key=lambda p: graph.by_id[p.clause_id].order):
            span = _best_sentence(evidence, passage)
            if span is not None:
                yield passage, f"{section_name(passage.ref)}, which it refers to", *span


def _names(text: str, label: str) -> bool:
    return bool(label) and label.lower() in text.lower()


def _followers(evidence: Evidence, quoted: _Quoted):
    """The definitions and cited sections the graph walk reached from one quoted clause."""
    for passage in evidence.retrieval.ranked_passages():
        why = passage.why
        if why.kind != "graph" or why.direction != "out" or passage.doc_id != quoted.doc_id or why.via_ref != quoted.ref:
            continue
        clause = evidence.clause(passage.doc_id, passage.clause_id)
        if clause is None:
            continue
        if why.edge == "DEFINES":
            span = _definition_span(evidence, passage, clause.text)
            relation = f"the definition of “{why.label}”"
        elif why.edge == "REFERENCES":
            span = _best_sentence(evidence, passage)
            relation = f"{why.label}, which it refers to"
        else:
            continue
        if span is not None:
            yield passage, relation, *span


def _definition_span(evidence: Evidence, passage: Passage, text: str) -> tuple[int, int] | None:
    """The definition of the edge's term, or the sentence of the retrieved piece that matches
    the question better (a long definition's list item that names what was asked)."""
    max_chars = evidence.settings.extractive.max_quote_chars
    span = _definition_sentence(text, passage.why.label, max_chars)
    best = evidence.best(passage)
    if span is None or best is None:
        return span
    if best.coverage > evidence.words.coverage(stems(text[span[0] : span[1]])):
        return best.start, quote_end(best, max_chars)
    return span



def _definition_sentence(text: str, term: str, max_chars: int) -> tuple[int, int] | None:
    """The sentence that defines `term`: the one quoting it, else the first that uses it."""
    spans = [(a, b) for a, b in sentence_spans(text) if len(text[a:b].split()) >= 4]
    lowered = term.lower()
    quoted = re.compile(r"[\"“‘']" + re.escape(lowered) + r"[\"”’']")
    using = [(a, b) for a, b in spans if lowered in text[a:b].lower()]
    chosen = next((span for span in using if quoted.search(text[span[0] : span[1]].lower())), None) or (using or spans or [None])[0]
    if chosen is None:
        return None
    start, end = chosen
    return start, min(end, start + max_chars)



def _best_sentence(evidence: Evidence, passage: Passage) -> tuple[int, int] | None:
    sentence = evidence.best(passage)
    if sentence is not None:
        return sentence.start, quote_end(sentence, evidence.settings.extractive.max_quote_chars)
    clause = evidence.clause(passage.doc_id, passage.clause_id)
    spans = sentence_spans(clause.text) if clause else []
    return spans[0] if spans else None


def looked_for(evidence: Evidence) -> str:
    """What the search looked for, in words, for an abstention."""
    plan = evidence.retrieval.plan
    parts = []
    if plan.topics:
        parts.append("clauses on " + ", ".join(t.value.replace("_", " ") for t in plan.topics))
    if plan.terms:
        parts.append("the defined terms " + ", ".join(f"“{t.term}”" for t in plan.terms))
    if plan.sections:
        parts.append(", ".join(s.text for s in plan.sections))
    words = [w for w in plan.keywords if stems(w) - evidence.scope_stems]
    if words:
        parts.append("the words " + ", ".join(f"“{w}”" for w in words[:6]) + " (in no clause in scope)")
    elif plan.keywords:
        parts.append("the words " + ", ".join(f"“{w}”" for w in plan.keywords[:6]))
    return "; ".join(parts) or "anything matching the question"
