"""Corpus-wide questions answered completely from the contract fields, each row cited."""

from __future__ import annotations

import json

from engine.query.field_query import field_query
from tests.conftest import GCLOUD, HIGHWAYS_NDA, MUTUAL_NDA
from tests.test_cli import engine

CATEGORIES = ["Audit Rights", "Change Of Control", "Insurance", "Anti-Assignment", "Ip Ownership Assignment"]


def test_enumeration_questions_become_field_filters():
    query = field_query("Which contracts are governed by New York law?", CATEGORIES)
    assert (query.kind, query.governing_law, query.categories) == ("list", "New York", [])
    query = field_query("How many distributor agreements have an audit right?", CATEGORIES)
    assert (query.kind, query.governing_law, query.categories, query.document_type) == ("count", None, ["Audit Rights"], "distributor")
    query = field_query("List every agreement with a change-of-control clause", CATEGORIES)
    assert query.categories == ["Change Of Control"]
    # words that open the request are no kind of agreement: these once listed only the contracts
    # with "all" in their title ("STRATEGIC ALLIANCE AGREEMENT"), or "our" or "signed"
    for request in ("List all agreements with an audit right", "Which signed agreements have an audit right?", "List all our agreements with an audit right"):
        assert field_query(request, CATEGORIES).document_type is None, request
    assert field_query("Which supply agreements have an audit right?", CATEGORIES).document_type == "supply"
    query = field_query("Which contracts are governed by Utopian law?", CATEGORIES)
    assert query.governing_law is None and query.unknown == ["Utopian law"]
    assert field_query("Which law governs this agreement?", CATEGORIES) is None  # one contract's question: search answers it
    assert field_query("What is the liability cap?", CATEGORIES) is None
    # a question that points at one contract is about it, though it speaks of each contract
    assert field_query("Our auditors check every agreement's audit clause; what does this one allow?", CATEGORIES) is None
    assert field_query("I track each contract's audit rights in a sheet. What are they in this agreement?", CATEGORIES) is None
    # "each contract year" is a span of time: this once listed "1 of 1 contracts with Insurance"
    # (the cue in the party's name), for a question about one contract's minimum purchase
    question = "How much does Principal Life Insurance have to buy from Princor Financial Services at minimum each contract year?"
    assert field_query(question, CATEGORIES) is None
    assert field_query("Does the insurance have to be renewed each agreement year?", CATEGORIES) is None
    assert field_query("Does each agreement have an insurance requirement?", CATEGORIES).categories == ["Insurance"]
    # "any of our ..." asks over contracts only when contracts follow
    assert field_query("Do any of our duties under the audit clause survive termination?", CATEGORIES) is None
    assert field_query("Do any of our supply contracts have an audit right?", CATEGORIES).categories == ["Audit Rights"]
    query = field_query("Which contracts expire in 2025?", CATEGORIES)
    assert (query.expires, query.expiry_year, query.categories) == ("in", 2025, [])
    query = field_query("How many agreements with an audit right end before 2030?", CATEGORIES)
    assert (query.kind, query.expires, query.expiry_year, query.categories) == ("count", "before", 2030, ["Audit Rights"])


def test_a_category_no_flag_lists_reliably_is_asked_of_each_contract_after_the_field_filters():
    """Change of control is read from contracts too unreliably to list them by its flag: the
    request keeps it as `searched`, beside the filters the fields settle."""
    from models.plan import CategoryGuess

    flagged, unflagged = ["Audit Rights"], ["Change Of Control"]
    acquired = [CategoryGuess(category="Change Of Control", probability=0.8)]
    query = field_query("Which contracts can be ended if a party is acquired?", flagged, acquired, 0.1, several=True, unflagged=unflagged)
    assert (query.searched, query.categories, query.governing_law) == ("Change Of Control", [], None)
    # beside the governing law, the question model's second guess is the clause asked for
    law_first = [CategoryGuess(category="Governing Law", probability=0.57), CategoryGuess(category="Change Of Control", probability=0.23)]
    question = "Which contracts governed by English law can be terminated if the supplier is acquired?"
    query = field_query(question, flagged, law_first, 0.1, several=True, unflagged=unflagged)
    assert (query.searched, query.governing_law) == ("Change Of Control", "England and Wales")
    law_only = [CategoryGuess(category="Governing Law", probability=0.9), CategoryGuess(category="Change Of Control", probability=0.05)]
    query = field_query("Which contracts are governed by English law?", flagged, law_only, 0.1, several=True, unflagged=unflagged)
    assert (query.searched, query.categories, query.governing_law) == (None, [], "England and Wales")
    # by the cue table when the question model is not sure, with a law or without
    assert field_query("List every agreement with a change-of-control clause", flagged, unflagged=unflagged).searched == "Change Of Control"
    query = field_query("Which contracts governed by English law have a change of control clause?", flagged, law_only, 0.1, unflagged=unflagged)
    assert (query.searched, query.governing_law) == ("Change Of Control", "England and Wales")
    # a flagged category cued beside it narrows the scope by its flag first
    both = field_query("Which contracts have an audit clause and a change of control clause?", flagged, unflagged=unflagged)
    assert (both.categories, both.searched) == (["Audit Rights"], "Change Of Control")
    # a flagged category is still read from the flags
    audit = [CategoryGuess(category="Governing Law", probability=0.44), CategoryGuess(category="Audit Rights", probability=0.34)]
    query = field_query("Which New York law contracts have an audit right?", flagged, audit, 0.1, unflagged=unflagged)
    assert (query.categories, query.searched, query.governing_law) == (["Audit Rights"], None, "New York")


def test_a_listing_of_a_category_no_flag_finds_reliably_asks_every_contract(sample_library):
    """Only the framework agreement lets a party end it on a change of control (its 5.4, whose
    5.4.1 and 5.4.2 each give CCS that right); the NDAs say nothing of one. Each contract is
    searched, however many are in scope, and where the request also names a law the fields
    narrow the scope first."""
    settings = sample_library.settings
    one_each = settings.model_copy(update={"limits": settings.limits.model_copy(update={"answer_each": 1})})
    listing = sample_library.engine.run("Which contracts have a change of control clause?", settings=one_each).enumeration
    assert listing.method == "search" and listing.query.searched == "Change Of Control" and listing.searched == 3
    assert [d.file for d in listing.documents] == [GCLOUD.name] and listing.documents[0].citation.ref.startswith("5.4")
    assert listing.headline() == "1 of 3 contracts where the search found Change Of Control."
    assert listing.notes == [
        "Contracts are not flagged for Change Of Control (too often misread to list by), so each of the 3 contracts was searched "
        "on its own and listed when its answer passed the evidence check (a contract without one says “Not found”)."
    ]
    narrowed = sample_library.ask("Which contracts governed by English law can be terminated if the supplier is acquired?").enumeration
    assert [d.file for d in narrowed.documents] == [GCLOUD.name] and narrowed.documents[0].citation.ref.startswith("5.4")
    assert narrowed.headline() == "1 of 3 contracts governed by the law of England and Wales and where the search found Change Of Control."
    none_under = sample_library.ask("Which contracts governed by Texas law have a change of control clause?").enumeration
    assert none_under.documents == [] and none_under.searched == 3
    assert none_under.notes[0] == "no contract in scope is governed by Texas law; the laws found are: England and Wales"


def test_every_contract_is_checked_and_each_listed_one_is_cited(sample_library):
    listing = sample_library.ask("Which contracts are governed by English law?").enumeration
    assert listing.searched == 3
    assert {(d.file, d.value) for d in listing.documents} == {
        (MUTUAL_NDA.name, "England and Wales"), (HIGHWAYS_NDA.name, "England and Wales"), (GCLOUD.name, "England and Wales"),
    }
    law = {d.file: d.citation for d in listing.documents}
    assert (law[HIGHWAYS_NDA.name].ref, law[HIGHWAYS_NDA.name].page) == ("8.1", 7)
    assert law[GCLOUD.name].rects  # highlightable like any citation

    insured = sample_library.ask("Which contracts have an insurance clause?").enumeration
    assert [(d.file, d.citation.ref) for d in insured.documents] == [(GCLOUD.name, "8.32")]

    framework = sample_library.ask("Which framework agreements are governed by English law?").enumeration
    assert [d.file for d in framework.documents] == [GCLOUD.name] and framework.searched == 3


def test_a_long_listing_cites_its_first_rows_and_the_rest_on_request(sample_library):
    """Over hundreds of contracts citing every row takes seconds: the first limits.listing_cited
    rows are cited at once, the others carry their evidence until cite_listing checks it."""
    settings = sample_library.settings
    one = settings.model_copy(update={"limits": settings.limits.model_copy(update={"listing_cited": 1})})
    listing = sample_library.engine.run("Which contracts are governed by English law?", settings=one).enumeration
    assert len(listing.documents) == 3 and listing.awaiting_citation == 2
    first, *rest = listing.documents
    assert first.citation is not None and first.citation.number == 1
    assert all(row.citation is None and row.quote for row in rest)
    done: list[tuple[int, int]] = []
    cited = sample_library.cite_listing(listing, lambda n, total: done.append((n, total)))
    assert cited.awaiting_citation == 0 and done == [(1, 2), (2, 2)]
    assert [row.citation.number for row in cited.documents] == [1, 2, 3]
    whole = sample_library.ask("Which contracts are governed by English law?", cite_all=True).enumeration
    assert [(r.file, r.citation.ref, r.citation.page) for r in cited.documents] == [(r.file, r.citation.ref, r.citation.page) for r in whole.documents]
    assert listing.awaiting_citation == 2  # the listing shown is not changed behind the app's back


def test_a_value_no_contract_has_is_reported_not_guessed(sample_library):
    listing = sample_library.ask("Which contracts are governed by Texas law?").enumeration
    assert listing.documents == []
    assert listing.notes == ["no contract in scope is governed by Texas law; the laws found are: England and Wales"]
    unknown = sample_library.ask("Which contracts are governed by Utopian law?").enumeration
    assert unknown.documents == [] and unknown.notes[0].startswith("Utopian law: no contract's governing law is known")


def test_contracts_without_an_end_date_are_counted_not_silently_dropped(sample_library):
    ending = {f.doc_id: f.expiration.value if f.expiration else None for f in sample_library.contract_fields()}
    listing = sample_library.ask("Which contracts expire after 2000?").enumeration
    dated = [doc_id for doc_id, value in ending.items() if value and value.count("/") == 2]
    assert sorted(d.doc_id for d in listing.documents) == sorted(dated)
    undated = len(ending) - len(dated)
    assert listing.notes == [f"{undated} of 3 contracts give no end date (their term is a length counted from an event, "
                             "renews until terminated, or is not stated), so they could not be checked"]
    assert listing.headline() == f"{len(dated)} of 3 contracts expiring after 2000."


def test_the_cli_returns_the_complete_list_as_json(tmp_path):
    db = str(tmp_path / "store")
    assert engine("ingest", "--db", db, str(MUTUAL_NDA), str(GCLOUD)).returncode == 0
    result = engine("ask", "--db", db, "--json", "Which contracts are governed by English law?")
    output = json.loads(result.stdout)
    assert [d["file"] for d in output["documents"]] == [MUTUAL_NDA.name, GCLOUD.name]
    first = output["documents"][0]
    assert first["value"] == "England and Wales" and first["citation"]["page"] == 2
    assert first["citation"]["quote"].startswith("This Agreement is governed by, and is to be construed in accordance with, English law")
    assert output["citations"] == [d["citation"] for d in output["documents"]]
