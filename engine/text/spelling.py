"""Spelling correction of a question before it is read.

"which contracts have audt rights" and "agreements with renwal terms" were read as the wrong
topic: the question model never saw those spellings, and the keyword search finds no
"audt" in any contract. A misspelt word is corrected to the likeliest word within one or two
edits (SymSpell), where likeliest counts a word's use in contracts
(bench/build_contract_words.py) well above its use in general English, so "renwal" becomes
"renewal" and not "rental". A word either list knows is never changed, nor names: a
capitalised word (the first only toward a question word: "Whcih" is "Which"), an acronym,
or any word of the contracts' names the caller passes as `keep`.
"""

from __future__ import annotations

import gzip
import importlib.resources
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import NamedTuple

from symspellpy import SymSpell, Verbosity

WORDS_FILE = Path(__file__).with_name("contract_words.txt.gz")
CONTRACT_WEIGHT = 10.0  # a contract's use of a word, over the same share of general English text
SLIP_SHARE = 0.01  # a correction undoing a common slip is preferred when at least this share as common as the likeliest
MIN_LENGTH = 4  # shorter words are too often an abbreviation ("nda", "ip") to correct
_TOKEN = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)*")  # "didn't" is one word, and left alone
_NAME_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")  # "ConformisInc" -> Conformis, Inc
_ENDINGS = ("s", "es", "ed", "d", "ing", "er", "ers", "ly", "ment", "ments", "able", "ability")
_PREFIXES = ("un", "re", "de", "non", "pre", "sub", "over", "under", "co", "mis", "dis", "anti", "counter", "inter", "out", "post", "self")
_QUESTION_WORDS = frozenset({"which", "what", "when", "where", "whose", "who", "whom", "how", "does", "should", "could", "would"})


class Corrected(NamedTuple):
    text: str
    changes: list[tuple[str, str]]  # (as written, as read)

    def notes(self) -> list[str]:
        """What a user is told: the question as it was read, when it was corrected."""
        if not self.changes:
            return []
        changed = ", ".join(f"{written} → {read}" for written, read in self.changes)
        return [f"Read as “{self.text}” (spelling corrected: {changed})."]


def name_words(names: Iterable[str]) -> set[str]:
    """The words of contracts' file names and titles ("ConformisInc_..." gives "conformis"):
    typed in lower case, such a name is meant as it is, not a misspelt word to correct."""
    return {word.lower() for name in names for word in _NAME_PART.findall(name)}


class SpellingCorrector:
    """SymSpell over general English word counts with the contracts' counts on top; built
    once per process (about 2 s and 140 MB)."""

    def __init__(self, words_file: Path = WORDS_FILE) -> None:
        self.symspell = SymSpell(max_dictionary_edit_distance=2, prefix_length=7)
        english = importlib.resources.files("symspellpy") / "frequency_dictionary_en_82_765.txt"
        self.symspell.load_dictionary(str(english), term_index=0, count_index=1)
        contract_counts = _read_counts(words_file)
        english_total = sum(self.symspell.words.values())
        scale = CONTRACT_WEIGHT * english_total / max(1, sum(contract_counts.values()))
        for word, count in contract_counts.items():
            self.symspell.create_dictionary_entry(word, int(count * scale))

    def knows(self, word: str) -> bool:
        return word.lower() in self.symspell.words

    def correct(self, question: str, keep: Iterable[str] = ()) -> Corrected:
        """The question with each misspelt word replaced by its likeliest correction."""
        kept = {w.lower() for w in keep}
        changes: list[tuple[str, str]] = []
        opening = _first_word_start(question)

        def replace(match: re.Match) -> str:
            word = match.group()
            fixed = self._correction(word, match.start() == opening, kept)
            if fixed is None:
                return word
            changes.append((word, fixed))
            return fixed

        return Corrected(_TOKEN.sub(replace, question), changes)

    def _correction(self, word: str, first: bool, kept: set[str]) -> str | None:
        """The word meant, or None when `word` stays as written."""
        if not self._correctable(word, first, kept):
            return None
        typed = word.lower()
        suggestions = self.symspell.lookup(typed, Verbosity.CLOSEST, max_edit_distance=1 if len(word) <= 5 else 2)
        if not suggestions:
            return None
        # a question opens with a question word: "wich contracts..." is "which", not "with"
        asking = [s.term for s in suggestions if first and s.term in _QUESTION_WORDS]
        if not asking and word[0].isupper():  # "Aduro's notice period...": a name opens it
            return None
        # a letter left out or two swapped are the commonest slips: "limt" is "limit" before
        # the likelier "list", "hier" is "hire" before "her"
        likeliest = suggestions[0].count
        slips = [s.term for s in suggestions if (_left_out_of(typed, s.term) or _swapped(typed, s.term)) and s.count >= SLIP_SHARE * likeliest]
        if not (asking or slips) and self._a_form_of_a_known_word(typed):
            return None  # "underpaying", "decompiling": no slip, a word the lists lack in this form
        fixed = (asking or slips or [suggestions[0].term])[0]
        return fixed[0].upper() + fixed[1:] if word[0].isupper() else fixed

    def _correctable(self, word: str, first: bool, kept: set[str]) -> bool:
        if len(word) < MIN_LENGTH or "'" in word or "’" in word or word.lower() in kept or self.knows(word):
            return False
        if word.isupper():  # an acronym: MFN, ROFR
            return False
        return first or not word[0].isupper()  # a capitalised word inside a sentence is a name

    def _a_form_of_a_known_word(self, word: str) -> bool:
        """A known word with a prefix or an ending ("underpaying", "decompiling")."""
        stems = [word[: -len(end)] + tail for end in _ENDINGS if word.endswith(end) for tail in ("", "e")]
        stems += [word[len(start):] for start in _PREFIXES if word.startswith(start)]
        return any(len(stem) >= MIN_LENGTH and self.knows(stem) for stem in stems)


def _left_out_of(typed: str, word: str) -> bool:
    """Whether `typed` is `word` with letters left out (in order)."""
    letters = iter(word)
    return all(letter in letters for letter in typed)


def _swapped(typed: str, word: str) -> bool:
    """Whether `typed` is `word` with two neighbouring letters swapped."""
    if len(typed) != len(word):
        return False
    differ = [i for i, (a, b) in enumerate(zip(typed, word)) if a != b]
    return len(differ) == 2 and differ[1] == differ[0] + 1 and typed[differ[0]] == word[differ[1]] and typed[differ[1]] == word[differ[0]]


def _first_word_start(text: str) -> int:
    found = _TOKEN.search(text)
    return found.start() if found else -1


def _read_counts(path: Path) -> dict[str, int]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return {word: int(count) for word, count in (line.split() for line in handle if line.strip())}


@cache
def spelling_corrector() -> SpellingCorrector:
    return SpellingCorrector()
