"""Train the learned candidate ranking (engine/query/rank.py) and judge it by cross-validation
grouped by contract, beside the hand-set formula, on every dev question set.

    .venv/bin/python bench/train_ranker.py [--db data/bench-store] [--sets multihop_dev dev_extra cuad_dev phrasings]
                                           [--folds 5] [--retrieval KEY=VALUE ...] [--write]
                                           [--presence-folds DIR] [--presence-model FILE] [--question-model FILE]
                                           [--question-folds DIR] [--phrasings-every N] [--query-adapter FILE]
                                           [--query-adapter-folds DIR]
                                           [--hold-docs FILE --held-out-model FILE [--fold-rankers-out DIR]]
                                           [--compare-without FEATURE ...]

For each answerable question, the graph mode's candidates (anchors and what the walk reached)
are collected with their features and the passage each would become; a candidate is positive
when its passage holds one of the question's evidence snippets (FORMAT.md's test). A model is
fitted on the other contracts' questions in each fold and the held-out questions' context is
rebuilt in the engine's reading order (likelihood per character; the likelihood order alone is
printed beside it); recall and completeness at 4k and 8k are printed for the formula, the
best order possible (evidence first: the ceiling of these candidates) and the held-out
rankings, per set, per type and per hops, with the worst fold. Three more ceilings follow the
chosen variant's held-out ranking: its context with the answer clause moved first, then with
what that clause needs right after it, then with what those need too (`answer_first_order`).
Two kinds of model are compared: the logistic regression that ships, read in one pass or in two
(the second also reads the first pass's probability for the likeliest candidate that needs each
one: it uses its term, cites it, or holds it; `rank.needed_by`), and shallow boosted trees
(scikit-learn's HistGradientBoostingClassifier). The trees did a little better here but far
worse on ContractNLI's NDAs, which none of these sets has (measure a ranker there with
`engine eval --ranker FILE`), so they do not ship. What ships reads twice ("two passes, then
support"): the two-pass regression orders a context's first `retrieval.lead_chars` characters,
and a second one, fitted with the multi-hop questions weighing SUPPORT_EMPHASIS times more,
orders the rest (`reading.reading_order`), so the single-clause answers in the lead are as the
one reading ranks them and what a multi-hop answer needs fills the rest. `--write` saves the
model `--variant` names, fitted on every question, to engine/query/ranker.npz.

Some features read other trained models, so they are computed as on a contract or a wording
those models never saw: `--presence-folds DIR` (bench/train_presence.py --folds-out) scores each
contract's clauses with the presence model that never read its labels (the rest with
`--presence-model`, default the shipped one), and `--question-model FILE` reads the questions
with a question model trained without their wording (bench/phrasings/folds.py's `cuad.npz`), so
the ranker learns how far to trust a category guess as sure as a new wording's, not as sure as
one the question model was fitted on. `--question-folds DIR` does the same per wording style:
each question is read by the fold model trained without its style. `--query-adapter-folds DIR`
(bench/train_query_adapter.py --folds-out) moves each question with the query adapter fitted
without its contract, so the adapted similarities the ranker learns from are as sure as a new
contract's (the adapter's training questions ask about the same contracts as cuad_dev). Held
out (stop 42), neither this nor three more features reading the adapted similarity (its value,
rank and gap to the best) ranked better: CUAD phrasings recall@4k 0.829 -> 0.830 and 0.825,
multi-hop complete@8k 0.750 -> 0.729 with the features; the shipped ranker is trained without.

`training_phrasings` (data/phrasings/training_cuad.jsonl, from bench/phrasings/build.py) asks
cuad_dev's categories in the training-only phrasings, written by writers who never saw an
evaluation phrasing, over every dev contract. The lead reading learns from every answerable one
(`--phrasings-every`), each weighing as one cuad_dev question, so it also learns from questions
whose words miss the clause's; the support reading is fitted without them (they are single-clause
questions). Held out by contract, over the CUAD phrasing sample (2,000 evaluation phrasings, in
wording no model here trained on), recall@4k 0.859 -> 0.873 with 5 contract folds and 0.857 ->
0.872 with 10, the worst style (scenario) 0.776 -> 0.823 and 0.778 -> 0.819; multi-hop
complete@8k 0.699 -> 0.696 and 0.705 -> 0.705; cuad_dev recall@4k 0.885 -> 0.882 and 0.884 ->
0.883 (stop 63). The lead, now learning mostly from single-clause questions, holds less of a
multi-hop answer in its 4,000 characters (multi-hop recall@4k 0.653 -> 0.615, 5 folds); the
support reading puts it back by 8,000. Weighing each 0.25, 0.5, 0.75, 1, 1.5 and 2 gave the
phrasings 0.865, 0.867, 0.872, 0.873, 0.875, 0.876 and multi-hop 0.699, 0.699, 0.696, 0.696,
0.690, 0.682 (5 folds).
Stop 39 had trained on one in four of them, with one reading, and seen 12 of 1,146 snippets at
4k change. The `phrasings` set (cuad_phrasings.jsonl, the evaluation phrasings) can be trained on
too, for measuring; `retrieval.py` and the shipped ranker do not.

`--compare-without FEATURE ...` cross-validates the chosen variant a second time with those
features' columns zeroed, on the same folds, to see what they add (an ablation, printed as a
column beside the others).

With `--hold-docs`, `--fold-rankers-out DIR` writes one ranker per wording style, trained
without those contracts and without that style; `engine eval --ranker-folds DIR` then ranks
each question with the one that never saw its contract or its wording.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import itertools
import random
import sys
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression

from common import (
    BENCH_DIR, BENCH_STORE, PROJECT_ROOT, SHARED_DATA, AdapterFolds, PresenceFolds, contract_id, id_sample, require_shared_data,
)

from engine.boosted_trees import BoostedTrees
from engine.eval.harness import ensure_documents, load_questions, wording_folds
from engine.eval.scores import Question, snippet_found, snippet_share
from engine.fields.presence import MODEL_FILE as PRESENCE_MODEL
from engine.logistic import StandardisedLogistic
from engine.query.meaning import QuestionModel
from engine.query.query_adapter import MODEL_FILE as ADAPTER_MODEL
from engine.query.query_adapter import use_query_adapter
from engine.query.rank import (
    FEATURES, LINKED_FEATURES, MODEL_FILE, RANKED_FEATURES, SUPPORT, candidate_features, interaction_basis, linked_rows, needed_by,
    question_products, with_interactions,
)
from engine.query.reading import in_order, reading_order
from engine.query.select import select, to_passage
from engine.service import Library
from engine.text.normalise import normalise
from models.retrieval import Mode

SETS = {
    "multihop_dev": BENCH_DIR / "multihop_dev.jsonl",
    "dev_extra": PROJECT_ROOT / "bench" / "multihop" / "dev_extra.jsonl",
    "cuad_dev": BENCH_DIR / "cuad_dev.jsonl",
    "phrasings": PROJECT_ROOT / "data" / "phrasings" / "cuad_phrasings.jsonl",  # bench/phrasings/build.py writes it
    "training_phrasings": PROJECT_ROOT / "data" / "phrasings" / "training_cuad.jsonl",  # and this, in training-only wording
}
DEFAULT_SETS = ["multihop_dev", "dev_extra", "cuad_dev", "training_phrasings"]  # the shipped ranker's
PHRASING_SETS = {"phrasings", "training_phrasings"}  # cuad_dev's questions in other words, sampled by --phrasings-every
SINGLE_CLAUSE_SETS = {"cuad_dev", *PHRASING_SETS}  # one category's labelled spans per question, not a multi-hop chain
CUAD_STYLE = "cuad"  # cuad_dev's own wording, as the phrasing files name it
BUDGETS = (4000, 8000)
C = 1.0  # inverse regularisation, a priori (standardised features, tens of thousands of rows)
# Shallow trees at scikit-learn's usual learning rate; the number of trees is found by its early
# stopping on a tenth of the training rows. Depth 2 and 5, leaf sizes 50 and 100 and other
# weightings of the multi-hop questions were cross-validated beside it and none was better on
# both cuad_dev and the multi-hop sets.
TREES = {"max_depth": 3, "learning_rate": 0.1, "max_iter": 200, "class_weight": "balanced", "random_state": 0}
Model = HistGradientBoostingClassifier | LogisticRegression
SHIPPED, SHIPPED_KIND = "two passes, then support", "two passes, then support"  # the variant engine/query/ranker.npz holds
#: how many times more the multi-hop questions weigh in the support reading's fit than in the
#: lead's (`reading.reading_order`: the lead orders a context's first `lead_chars`, the support the
#: rest). Held out by contract (stop 62, the 914 dev questions with presence and question fold
#: models), multi-hop complete@8k by emphasis 3 / 4 / 6 / 12: 0.690 / 0.690 / 0.699 / 0.693 with 5
#: folds; 6 gives 0.705 with 10 (one reading: 0.667 / 0.670).
SUPPORT_EMPHASIS = 6.0


@dataclass
class Collected:
    """One answerable question's candidates: features, labels, passage texts, and the formula's context."""

    question: Question
    source: str  # the question set
    group: str  # the contract, for grouping folds
    features: np.ndarray
    labels: np.ndarray
    texts: list[str]  # each candidate's passage, normalised
    formula: list[str] = field(default_factory=list)  # the formula's context, normalised, in order
    found: object = None  # the retriever's Candidates, to rebuild a context the way select() does
    candidates: list = field(default_factory=list)
    plan: object = None
    needers: list[list[int]] = field(default_factory=list)  # rank.needed_by(candidates)

    @cached_property
    def products(self) -> np.ndarray:
        """Each candidate clause's vector times the question's (`rank.question_products`)."""
        return question_products(self.found.vector, self.candidates)


@dataclass
class Fitted:
    """A fitted ranking as the engine reads it: the candidate model over standardised features
    and, for a two-pass logistic regression, the second pass (`rank.LearnedRanker`)."""

    mean: np.ndarray
    scale: np.ndarray
    model: Model
    basis: np.ndarray  # the question x clause interactions' directions (`rank.interaction_basis`)
    linked: tuple[np.ndarray, np.ndarray, LogisticRegression] | None = None
    support: Fitted | None = None  # the support reading (`reading.reading_order`), fitted as this one with the multi-hop questions weighing more

    def rows(self, item: Collected) -> np.ndarray:
        """The item's rows as the model reads them (`rank.RANKED_FEATURES`)."""
        return with_interactions(item.features, item.products, self.basis)

    def first_pass(self, item: Collected) -> np.ndarray:
        return self.model.predict_proba((self.rows(item) - self.mean) / self.scale)[:, 1]

    def linked_rows(self, item: Collected, first: np.ndarray) -> np.ndarray:
        return linked_rows(self.rows(item), item.needers, first)

    def last_pass(self, item: Collected) -> tuple[Model, np.ndarray]:
        """The model that decides and the standardised rows it reads."""
        if self.linked is None:
            return self.model, (self.rows(item) - self.mean) / self.scale
        mean, scale, model = self.linked
        return model, (self.linked_rows(item, self.first_pass(item)) - mean) / scale

    def log_odds(self, item: Collected) -> np.ndarray:
        model, rows = self.last_pass(item)
        return model.decision_function(rows)

    def probabilities(self, item: Collected) -> np.ndarray:
        model, rows = self.last_pass(item)
        return model.predict_proba(rows)[:, 1]


def style_of(question: Question) -> str:
    """A question's wording style; cuad_dev's own questions, which carry none, are "cuad"."""
    return question.style or CUAD_STYLE


def phrasing_sample(questions: list[Question], every: int) -> list[Question]:
    """One in `every` answerable phrasings (not cuad_dev's own wording, which is its own set),
    chosen by a hash of the id so every run trains on the same ones."""
    return id_sample([q for q in questions if q.style != CUAD_STYLE and q.answerable], every)


def set_questions(name: str, every: int = 1) -> list[Question]:
    """A question set of SETS, a phrasing set sampled one in `every`; a missing phrasing file
    (bench/phrasings/build.py writes them) stops the run with what to do."""
    if not SETS[name].is_file():
        sys.exit(f"error: {SETS[name]} is missing; build it with .venv/bin/python bench/phrasings/build.py")
    questions = load_questions(SETS[name])
    return phrasing_sample(questions, every) if name in PHRASING_SETS else questions


def collect(
    library: Library, questions: list[Question], mapping: dict[str, str], source: str,
    presence: PresenceFolds | None = None, readers: dict[str, QuestionModel] | None = None, adapters: AdapterFolds | None = None,
) -> list[Collected]:
    """`readers`: wording style -> the question model that reads it (cuad_dev's questions are
    style "cuad"); the library's own when absent."""
    engine, retriever, settings = library.engine, library.retriever, library.settings
    collected = []
    with wording_folds(library, readers) as read_as:
        for number, question in enumerate(questions, start=1):
            if not question.answerable or not question.evidence:
                continue
            read_as(style_of(question))
            doc_ids = [mapping[d] for d in question.docs if d in mapping]
            graphs = retriever.graphs(doc_ids)
            if presence is not None:
                presence.use_for(question.docs[0])
            if adapters is not None:
                adapters.use_for(question.docs[0])
            plan = engine.plan(question.question, graphs, None, settings)
            found = retriever.candidates(plan, settings.retrieval, Mode.GRAPH, graphs)
            candidates, matrix = candidate_features(found.anchors, found.followers, found.scope, plan)
            texts = [normalise(to_passage(c, found.vector, plan, settings.retrieval).text) for c in candidates]
            labels = np.array([any(snippet_found(e.text, text) for e in question.evidence) for text in texts], dtype=int)
            formula = [normalise(p.text) for p in select(found.anchors, found.followers, found.vector, plan, settings.retrieval.budget, settings.retrieval)]
            collected.append(Collected(question, source, question.docs[0], matrix, labels, texts, formula, found, candidates, plan, needed_by(candidates)))
            if number % 200 == 0:
                print(f"  {number}/{len(questions)} questions", flush=True)
    return collected


def context_scores(question: Question, passages: list[str]) -> dict[str, float]:
    """Found snippets and completeness at each budget for a context (normalised passages in
    order), as FORMAT.md scores them; `mean_scores` turns the counts into recall."""
    joined = " ".join(passages)
    result = {"snippets": float(len(question.evidence))}
    for budget in BUDGETS:
        found = [snippet_found(e.text, joined[:budget]) for e in question.evidence]
        result[f"found@{budget // 1000}k"] = float(sum(found))
        result[f"complete@{budget // 1000}k"] = float(all(found))
    return result


def fit(items: list[Collected], weights: dict[str, float] | None = None, kind: str = "logistic", basis: np.ndarray | None = None) -> Fitted:
    """`weights`: question id -> the weight of each of its candidates (1 when absent). Trees
    read the features as they are (mean 0, scale 1 leave them so). Kind "two passes" fits the
    second pass on the first's probabilities for the same training questions, in sample: with
    inner contract folds instead, held-out multi-hop complete@8k was the same (0.750, stop 51).
    Kind "two passes, then support" fits two such readings: the lead with `weights`, the support
    without the phrasings and with the multi-hop questions' weights (the only ones
    `multi_hop_weights` sets) times SUPPORT_EMPHASIS, over the lead's `basis` (the ranker file
    holds one for both). The support orders what follows an answer, for what multi-hop answers
    need; the phrasings, fitted there too, took multi-hop complete@8k 0.696 -> 0.688 held out
    (stop 62)."""
    if kind == SHIPPED_KIND:
        lead = fit(items, weights, "two passes")
        support = [i for i in items if i.source not in PHRASING_SETS]
        lead.support = fit(support, {qid: weight * SUPPORT_EMPHASIS for qid, weight in (weights or {}).items()}, "two passes", lead.basis)
        return lead
    labels = np.concatenate([i.labels for i in items])
    sample = np.concatenate([np.full(len(i.labels), (weights or {}).get(i.question.id, 1.0)) for i in items])
    if basis is None:
        basis = interaction_basis(np.vstack([i.products for i in items]))  # from the training questions alone, without labels
    matrix = np.vstack([with_interactions(i.features, i.products, basis) for i in items])
    if kind == "trees":
        width = matrix.shape[1]
        return Fitted(np.zeros(width), np.ones(width), HistGradientBoostingClassifier(**TREES).fit(matrix, labels, sample_weight=sample), basis)
    fitted = Fitted(*_logistic(matrix, labels, sample), basis)
    if kind == "two passes":
        fitted.linked = _logistic(np.vstack([fitted.linked_rows(i, fitted.first_pass(i)) for i in items]), labels, sample)
    return fitted


def _logistic(matrix: np.ndarray, labels: np.ndarray, sample: np.ndarray) -> tuple[np.ndarray, np.ndarray, LogisticRegression]:
    mean, scale = matrix.mean(axis=0), matrix.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=C, max_iter=2000, class_weight="balanced").fit((matrix - mean) / scale, labels, sample_weight=sample)
    return mean, scale, model


def learned_order(item: Collected, fitted: Fitted, settings, per_character: bool = True) -> list[str]:
    """Every candidate in the engine's reading order (`reading.reading_order`: likelihood per
    character, the support reading's past `settings.lead_chars` when fitted with one), or by
    likelihood alone when not `per_character` (the reading order before stop 37)."""
    probabilities = fitted.probabilities(item)
    text = {id(c): t for c, t in zip(item.candidates, item.texts)}
    if not per_character:
        return [text[id(r.candidate)] for r in in_order(item.candidates, probabilities)]
    lengths = np.array([len(t) + 1 for t in item.texts])  # the texts are normalised, as select_ranked counts
    support = fitted.support.probabilities(item) if fitted.support is not None else None
    return [text[id(r.candidate)] for r in reading_order(item.candidates, probabilities, lengths, support, settings.lead_chars)]


def likeliest_order(item: Collected, fitted: Fitted, settings) -> list[str]:
    return learned_order(item, fitted, settings, per_character=False)


def anchors_order(item: Collected, fitted: Fitted, settings) -> list[str]:
    """The anchors in the model's order, each followed by what it led to as select() places them."""
    probabilities = fitted.log_odds(item)
    score = {c.clause.clause_id: p for c, p in zip(item.candidates, probabilities)}
    anchors = item.found.anchors
    ranked = sorted(anchors.values(), key=lambda a: -score[a.clause.clause_id])
    new_rank: dict[int, int] = {}
    for rank, anchor in enumerate(ranked, start=1):
        new_rank.setdefault(anchor.order, rank)
    moved = {cid: dataclasses.replace(a, order=new_rank[a.order]) for cid, a in anchors.items()}
    followers = [dataclasses.replace(f, order=new_rank.get(f.order, f.order)) for f in item.found.followers]
    passages = select(moved, followers, item.found.vector, item.plan, settings.budget, settings)
    return [normalise(p.text) for p in passages]


def without(items: list[Collected], names: list[str]) -> list[Collected]:
    """The items with these features' columns zeroed: a model fitted on them cannot use them."""
    columns = [FEATURES.index(name) for name in names]

    def zeroed(matrix: np.ndarray) -> np.ndarray:
        matrix = matrix.copy()
        matrix[:, columns] = 0.0
        return matrix

    return [dataclasses.replace(item, features=zeroed(item.features)) for item in items]


def best_possible_order(item: Collected) -> list[str]:
    """The candidates holding evidence first, shortest first: the ceiling any ranking of these
    candidates can reach. Multi-hop complete@8k cannot pass it however well the ranker learns;
    what lies above it needs candidates the search and the walk do not bring (stop 44: 0.889)."""
    holding = sorted((t for t, label in zip(item.texts, item.labels) if label), key=len)
    return holding + [t for t, label in zip(item.texts, item.labels) if not label]


def first_places(ordered: list[str]) -> dict[str, int]:
    """Each passage text's first place in a context (a text two candidates share is read once)."""
    return {text: index for index, text in reversed(list(enumerate(ordered)))}


def answer_first_order(item: Collected, ordered: list[str], depth: int) -> list[str]:
    """A held-out context with the candidate holding the question's first evidence snippet (the
    multi-hop sets list the clause that answers first; a parent_scope question, the lead-in its
    answer completes) moved to the front, followed by
    what it needs (`rank.needed_by`: the definitions of terms it uses, the clauses it cites, its
    parts and parent) and, at `depth` 2, what those need in turn, each level in its held-out
    order. Ceilings between the ranking and the best order possible: what finding the answer
    clause would be worth, and what reading its support with it would add. Stop 61, the shipped
    recipe held out by 5 contract folds: multi-hop complete@8k 0.667, answer clause first 0.708,
    with what it needs 0.735, with what those need 0.732, best order 0.926 (2 hops 0.804, 0.863,
    0.922, 0.889; 3 hops 0.552, 0.579, 0.579, 0.601). A 3-hop question's support is often not
    what its answer clause needs: of its 352 support snippets, 60 lie in no candidate linked to
    the answer clause within three such steps (49 of them in a clause using a term that one of
    its needs, or theirs, defines: a fellow user, not a need) and 19 in no candidate at all."""
    answers = [k for k, text in enumerate(item.texts) if snippet_found(item.question.evidence[0].text, text)]
    if not answers:
        return ordered
    position = first_places(ordered)
    front = [min(answers, key=lambda k: position[item.texts[k]])]
    level = front
    for _ in range(depth):
        reached = set(level)
        level = sorted({k for k, needers in enumerate(item.needers) if reached.intersection(needers)} - set(front), key=lambda k: position[item.texts[k]])
        front += level
    rest = list(ordered)
    for k in front:
        rest.remove(item.texts[k])
    return [item.texts[k] for k in front] + rest


def print_misses(items: list[Collected], orders: dict[str, list[str]], budget: int = 8000) -> None:
    """Each incomplete question's missing snippets: the candidates holding one, with the place
    and the character the held-out ranking gave them, and how the search or the walk found them;
    or that no candidate holds it (with the share of its word 5-grams the nearest one holds)."""
    print(f"\nmulti-hop questions incomplete at {budget // 1000}k, held out by contract:")
    for item in items:
        ordered = orders.get(item.question.id)
        if ordered is None:
            continue
        joined = " ".join(ordered)[:budget]
        missing = [e for e in item.question.evidence if not snippet_found(e.text, joined)]
        if not missing:
            continue
        print(f"{item.question.id} ({item.question.type}, {item.question.hops} hops): {item.question.question}")
        starts = list(itertools.accumulate((len(text) + 1 for text in ordered), initial=0))
        place = first_places(ordered)
        for evidence in missing:
            holders = [(c, t) for c, t in zip(item.candidates, item.texts) if snippet_found(evidence.text, t)]
            print(f"  missing: {evidence.text[:110]!r}")
            if not holders:
                share = max((snippet_share(evidence.text, t) for t in item.texts), default=0.0)
                print(f"    no candidate holds it (the nearest holds {share:.0%} of its 5-grams)")
            for candidate, text in holders:
                index = place[text]
                print(f"    {candidate.clause.ref}: place {index + 1} at character {starts[index]:,}, {candidate.why.describe()}")


def multi_hop_weights(items: list[Collected]) -> dict[str, float]:
    """The multi-hop questions weigh as much as cuad_dev's together (not its rewordings, which
    would then set how much the graph's questions count): there are far fewer, and what they
    need (the clauses the answer depends on) is what the graph is for. Twice as much was
    measured held out by contract (stop 61, fold models): multi-hop complete@8k 0.667 ->
    0.690 with 5 folds and 0.670 -> 0.690 with 10, worst fold up in both, but the ranker fitted
    so loses recall@4k in other wording (the CUAD phrasings' scenario style 0.910 -> 0.886,
    ContractNLI 0.966 -> 0.961) and the Highways NDA's effective-date answer its preamble. Not
    shipped as the one reading; the support reading (`fit`'s "two passes, then support") weighs
    them SUPPORT_EMPHASIS times more and orders only the context past its lead."""
    multihop = [i for i in items if i.source not in SINGLE_CLAUSE_SETS]
    single = sum(1 for i in items if i.source in SINGLE_CLAUSE_SETS - PHRASING_SETS)  # cuad_dev's, not its rewordings
    balance = single / len(multihop) if single and multihop else 1.0  # a run of multi-hop sets alone weighs them as they are
    return {i.question.id: balance for i in multihop}


def folds_of(items: list[Collected], count: int) -> list[set[str]]:
    """Contract folds: those of the sets in their own wording as before the phrasings joined
    (so the multi-hop figures compare with earlier runs'), then the contracts only phrasings ask
    about, dealt round."""
    own = sorted({i.group for i in items if i.source not in PHRASING_SETS})
    random.Random(17).shuffle(own)
    folds = [set(own[k::count]) for k in range(count)]
    for n, contract in enumerate(sorted({i.group for i in items} - set(own))):
        folds[n % count].add(contract)
    return folds


def mean_scores(rows: list[dict[str, float]]) -> dict[str, float]:
    """Recall as FORMAT.md defines it (found snippets / all snippets), completeness per question."""
    if not rows:
        return {}
    snippets = sum(r["snippets"] for r in rows)
    result = {f"recall@{b // 1000}k": sum(r[f"found@{b // 1000}k"] for r in rows) / snippets for b in BUDGETS}
    result.update({f"complete@{b // 1000}k": float(np.mean([r[f"complete@{b // 1000}k"] for r in rows])) for b in BUDGETS})
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", default=str(BENCH_STORE))
    parser.add_argument("--sets", nargs="+", default=DEFAULT_SETS, choices=list(SETS))
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--hold-docs", type=Path, help="contract ids (one per line) to leave out of a second model, for evaluating on them")
    parser.add_argument("--held-out-model", type=Path, help="where that second model goes (with --hold-docs)")
    parser.add_argument("--variant", default=SHIPPED, help="the variant --write saves and the in-sample column shows")
    parser.add_argument("--write", action="store_true", help=f"save the model fitted on every question to {MODEL_FILE.relative_to(PROJECT_ROOT)}")
    parser.add_argument("--presence-folds", type=Path, help="presence fold models (bench/train_presence.py --folds-out)")
    parser.add_argument("--presence-model", type=Path, default=PRESENCE_MODEL, help="the presence model for contracts no fold model left out")
    parser.add_argument("--question-model", type=Path, help="a question model trained without these questions' wording")
    parser.add_argument("--question-folds", type=Path, help="DIR/<style>.npz (bench/phrasings/folds.py) reads the questions of that style; cuad_dev's are style cuad")
    parser.add_argument("--phrasings-every", type=int, default=1, metavar="N", help="train on one in N answerable phrasings (default every one)")
    parser.add_argument("--fold-rankers-out", type=Path, help="with --hold-docs: DIR/<style>.npz, each trained without those contracts and that wording style")
    parser.add_argument("--compare-without", nargs="+", default=[], metavar="FEATURE", choices=FEATURES,
                        help="also cross-validate the chosen variant without these features (their columns zeroed)")
    parser.add_argument("--query-adapter", type=Path, help="a query adapter fitted without these contracts (bench/train_query_adapter.py --held-out-model)")
    parser.add_argument("--query-adapter-folds", type=Path, help="query adapters by contract fold (bench/train_query_adapter.py --folds-out); --query-adapter, else the shipped one, for contracts none left out")
    parser.add_argument("--misses", action="store_true", help="list each multi-hop question the chosen variant leaves incomplete at 8k held out, and where its missing evidence was")
    parser.add_argument("--retrieval", nargs="*", default=[], metavar="KEY=VALUE", help="retrieval settings for this run, e.g. min_graph_score=0 follower_chars=1200")
    args = parser.parse_args()
    require_shared_data()
    library = Library(args.db)
    retrieval = library.settings.retrieval
    retrieval = retrieval.model_validate({**retrieval.model_dump(), **dict(change.split("=", 1) for change in args.retrieval)})
    library.settings = library.settings.model_copy(update={"retrieval": retrieval})  # collect() reads library.settings
    presence = PresenceFolds(args.presence_folds, args.presence_model)
    if args.query_adapter:
        use_query_adapter(args.query_adapter)
    adapters = AdapterFolds(args.query_adapter_folds, args.query_adapter or ADAPTER_MODEL) if args.query_adapter_folds else None
    if args.question_model:
        library.engine.meaning = QuestionModel(args.question_model)
    readers = {path.stem: QuestionModel(path) for path in sorted(args.question_folds.glob("*.npz"))} if args.question_folds else None
    items: list[Collected] = []
    for name in args.sets:
        questions = set_questions(name, args.phrasings_every)
        mapping = ensure_documents(library, questions, SHARED_DATA)
        print(f"{name}: collecting candidates for {sum(q.answerable for q in questions)} answerable questions", flush=True)
        items += collect(library, questions, mapping, source=name, presence=presence, readers=readers, adapters=adapters)
    positives = sum(int(i.labels.sum()) for i in items)
    print(f"{len(items)} questions, {sum(len(i.labels) for i in items)} candidates, {positives} holding evidence, "
          f"{sum(1 for i in items if i.labels.sum() == 0)} questions with none among the candidates")

    weights = multi_hop_weights(items)
    variants = {  # name -> (question weights, how the context is rebuilt, model kind)
        "learned": (None, learned_order, "logistic"),
        "learned, multi-hop weighted": (weights, learned_order, "logistic"),
        "learned, weighted, two passes": (weights, learned_order, "two passes"),
        SHIPPED: (weights, learned_order, SHIPPED_KIND),
        "same, by likelihood alone": (weights, likeliest_order, "logistic"),
        "anchors learned, weighted": (weights, anchors_order, "logistic"),
        "trees": (None, learned_order, "trees"),
        "trees, multi-hop weighted": (weights, learned_order, "trees"),
    }
    dropped: dict[str, list[str]] = {}  # variant -> the features it is fitted without
    if args.compare_without:
        comparison = f"{args.variant}, without {', '.join(args.compare_without)}"
        variants[comparison], dropped[comparison] = variants[args.variant], args.compare_without
    retrieval = library.settings.retrieval
    sources: dict[str, dict[str, dict[str, float]]] = {"formula": {i.question.id: context_scores(i.question, i.formula) for i in items}}
    sources["best order possible"] = {i.question.id: context_scores(i.question, best_possible_order(i)) for i in items}
    fold_rows: dict[str, list[dict[str, float]]] = collections.defaultdict(list)
    multi_hop_fold_rows: dict[str, list[dict[str, float]]] = collections.defaultdict(list)
    held_out_orders: dict[str, list[str]] = {}  # question id -> the chosen variant's held-out context, in order
    folds = folds_of(items, args.folds)
    for name, (weighting, order, kind) in variants.items():
        sources[name] = {}
        seen = without(items, dropped[name]) if name in dropped else items
        for contracts in folds:
            train = [i for i in seen if i.group not in contracts]
            fitted = fit(train, weighting, kind)
            rows, multi_hop = [], []
            for item in (i for i in seen if i.group in contracts):
                ordered = order(item, fitted, retrieval)
                if name == args.variant:
                    held_out_orders[item.question.id] = ordered
                sources[name][item.question.id] = context_scores(item.question, ordered)
                rows.append(sources[name][item.question.id])
                if item.source not in SINGLE_CLAUSE_SETS:
                    multi_hop.append(sources[name][item.question.id])
            fold_rows[name].append(mean_scores(rows))
            multi_hop_fold_rows[name].append(mean_scores(multi_hop))
    chosen = args.variant
    by_id = {i.question.id: i for i in items}
    # names unlike the variants' own: the table prints the first 26 characters of each
    for name, depth in (("answer clause first", 0), ("and what it needs next", 1), ("and what those need", 2)):
        sources[name] = {
            qid: context_scores(by_id[qid].question, answer_first_order(by_id[qid], ordered, depth)) for qid, ordered in held_out_orders.items()
        }
    weighting, order, kind = variants[chosen]
    fitted = fit(items, weighting, kind)
    sources[f"{chosen} (in sample)"] = {i.question.id: context_scores(i.question, order(i, fitted, retrieval)) for i in items}

    def table(title: str, key) -> None:
        groups: dict[str, list[str]] = collections.defaultdict(list)
        for item in items:
            groups[key(item)].append(item.question.id)
        print(f"\n{title} (recall@4k / recall@8k / complete@8k; learned variants held out by contract)")
        print(f"{'':30} {'n':>4}" + "".join(f"  {name[:26]:>26}" for name in sources))
        for group, ids in sorted(groups.items()):
            cells = []
            for source in sources.values():
                s = mean_scores([source[i] for i in ids])
                cells.append(f"{s['recall@4k']:.3f}/{s['recall@8k']:.3f}/{s['complete@8k']:.3f}")
            print(f"{group[:30]:30} {len(ids):>4}" + "".join(f"  {cell:>26}" for cell in cells))

    table("by set", lambda i: i.source)
    table("phrasings by wording style", lambda i: style_of(i.question) if i.source in SINGLE_CLAUSE_SETS else "(multi-hop)")
    table("multi-hop by type", lambda i: f"{i.question.type}" if i.source not in SINGLE_CLAUSE_SETS else f"({i.source})")
    table("multi-hop by hops", lambda i: f"{i.question.hops} hops" if i.source not in SINGLE_CLAUSE_SETS else f"({i.source})")
    for name, rows in fold_rows.items():
        per_fold = ", ".join(f"{r['recall@4k']:.3f}" for r in rows)
        print(f"{name}: recall@4k per held-out contract fold {per_fold}; worst {min(r['recall@4k'] for r in rows):.3f}")
        if any(multi_hop_fold_rows[name]):
            complete = [r["complete@8k"] for r in multi_hop_fold_rows[name] if r]
            print(f"{name}: multi-hop complete@8k per held-out contract fold {', '.join(f'{c:.3f}' for c in complete)}; worst {min(complete):.3f}")
    if args.misses:
        print_misses([i for i in items if i.source not in SINGLE_CLAUSE_SETS], held_out_orders)
    if kind != "trees":
        last, names = (fitted.linked[2], LINKED_FEATURES) if fitted.linked else (fitted.model, RANKED_FEATURES)
        print("\ncoefficients (standardised, the last pass):")
        for name, weight in sorted(zip(names, last.coef_[0]), key=lambda x: -abs(x[1])):
            print(f"  {name:22} {weight:+.3f}")
    if args.write:
        save(MODEL_FILE, fitted)
    if args.hold_docs and args.held_out_model:
        held = set(args.hold_docs.read_text().split())
        kept = [i for i in items if contract_id(i.group) not in held]
        save(args.held_out_model, fit(kept, weighting, kind))
        print(f"  (trained on {len(kept)} of {len(items)} questions, leaving out the contracts of {args.hold_docs})")
        if args.fold_rankers_out:
            write_style_folds(args.fold_rankers_out, kept, weighting, kind)


def write_style_folds(folder: Path, items: list[Collected], weighting: dict[str, float] | None, kind: str) -> None:
    """One ranker per wording style, trained without any question of it, so an evaluation
    that reads each style with its fold (`engine eval --ranker-folds`) is cross-validated by
    wording as well as by contract."""
    folder.mkdir(parents=True, exist_ok=True)
    styles = sorted({style_of(i.question) for i in items if i.source in SINGLE_CLAUSE_SETS})
    for style in styles:
        kept = [i for i in items if i.source not in SINGLE_CLAUSE_SETS or style_of(i.question) != style]
        save(folder / f"{style}.npz", fit(kept, weighting, kind))


def save(path: Path, fitted: Fitted) -> None:
    """Trees as arrays (engine/boosted_trees.py), a logistic regression as its weights, with
    its second pass's under the prefix `linked_` and a support reading's under `rank.SUPPORT`
    (`rank.LearnedRanker` reads them all)."""
    if isinstance(fitted.model, HistGradientBoostingClassifier):
        BoostedTrees.from_sklearn(fitted.model, RANKED_FEATURES).save(path, interaction_basis=fitted.basis)
    else:
        arrays = logistic_arrays(fitted)
        if fitted.support is not None:
            arrays |= logistic_arrays(fitted.support, SUPPORT)
        np.savez(path, **arrays, interaction_basis=fitted.basis)
    print(f"wrote {path}")


def logistic_arrays(fitted: Fitted, prefix: str = "") -> dict[str, np.ndarray]:
    """A fitted logistic regression's arrays, and its second pass's under `linked_`."""
    arrays = StandardisedLogistic.from_sklearn(fitted.model, RANKED_FEATURES, fitted.mean, fitted.scale).arrays(prefix)
    if fitted.linked is not None:
        mean, scale, model = fitted.linked
        arrays |= StandardisedLogistic.from_sklearn(model, LINKED_FEATURES, mean, scale).arrays(f"{prefix}linked_")
    return arrays


if __name__ == "__main__":
    main()
