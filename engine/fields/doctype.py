"""The kind of agreement, from its title: "TRADEMARK LICENSE AGREEMENT" -> "License".

A title that names no family ("RATE FT-A AGREEMENT", "Contract No.: DDCX...") is read with the
contract's opening words, which usually say what it is ("... this transportation agreement").
A misspelt family ("AFFLIATE AGREEMENT") still counts. Nothing found is "" (shown as "Other"),
never the title's leftover words: a party's name or "Form Of" is not a kind of agreement.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from models.clause import Clause

NON_DISCLOSURE = "Non-Disclosure"  # the family whose terms ContractNLI asks about (the presence model's "NDA: ..." columns)

# Families analysts group contracts by, most specific first.
FAMILIES = [
    ("joint venture", "Joint Venture"), ("strategic alliance", "Strategic Alliance"), ("non-disclosure", NON_DISCLOSURE),
    ("non disclosure", NON_DISCLOSURE), ("nondisclosure", NON_DISCLOSURE), ("confidentiality", NON_DISCLOSURE), ("co-branding", "Co-Branding"),
    ("cobranding", "Co-Branding"), ("co-promotion", "Promotion"), ("franchise", "Franchise"), ("distribut", "Distributor"),
    ("resell", "Reseller"), ("licens", "License"), ("licenc", "License"), ("hosting", "Hosting"), ("outsourc", "Outsourcing"),
    ("maintenance", "Maintenance"), ("support", "Maintenance"), ("development", "Development"), ("collaborat", "Collaboration"),
    ("supply", "Supply"), ("manufactur", "Manufacturing"), ("agency", "Agency"), ("agent", "Agency"), ("consult", "Consulting"),
    ("sponsor", "Sponsorship"), ("endorse", "Endorsement"), ("affiliate", "Affiliate"), ("marketing", "Marketing"),
    ("promotion", "Promotion"), ("transport", "Transportation"), ("service", "Services"), ("cooperation", "Cooperation"),
    ("intellectual property", "Intellectual Property"), ("framework", "Framework"), ("employment", "Employment"),
    ("lease", "Lease"), ("tenancy", "Lease"), ("purchase", "Purchase"), ("sale", "Purchase"), ("joint filing", "Joint Filing"),
]
_WORD = re.compile(r"[a-z]+")
_TYPO_MIN_CUE = 6  # shorter cues ("sale", "agent") are too close to ordinary words to match loosely
_TYPO_RATIO = 0.85


def contract_type(title: str, clauses: list[Clause]) -> str:
    """A contract's family, read from its title and its first clauses' words."""
    return document_type(title, " ".join(c.text for c in sorted(clauses, key=lambda c: c.order)[:4]))


def document_type(title: str, opening: str = "") -> str:
    """The agreement family its title names, else the one its opening words name, else ""."""
    return _family(title.lower()) or _family(opening.lower()[:600], typos=False) or ""


def _family(text: str, typos: bool = True) -> str | None:
    for cue, family in FAMILIES:
        if cue in text:
            return family
    if not typos:
        return None
    words = _WORD.findall(text)
    for cue, family in FAMILIES:
        if " " in cue or len(cue) < _TYPO_MIN_CUE:
            continue
        if any(SequenceMatcher(None, word[: len(cue) + 1], cue).ratio() >= _TYPO_RATIO for word in words if len(word) >= len(cue) - 1):
            return family
    return None
