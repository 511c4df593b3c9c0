"""The kind of agreement, from its title: "TRADEMARK LICENSE AGREEMENT" -> "License"."""

from __future__ import annotations

import re

# Families analysts group contracts by, most specific first.
FAMILIES = [
    ("joint venture", "Joint Venture"), ("strategic alliance", "Strategic Alliance"), ("non-disclosure", "Non-Disclosure"),
    ("nondisclosure", "Non-Disclosure"), ("confidentiality", "Non-Disclosure"), ("co-branding", "Co-Branding"),
    ("cobranding", "Co-Branding"), ("co-promotion", "Promotion"), ("franchise", "Franchise"), ("distribut", "Distributor"),
    ("resell", "Reseller"), ("licens", "License"), ("licenc", "License"), ("hosting", "Hosting"), ("outsourc", "Outsourcing"),
    ("maintenance", "Maintenance"), ("support", "Maintenance"), ("development", "Development"), ("collaborat", "Collaboration"),
    ("supply", "Supply"), ("manufactur", "Manufacturing"), ("agency", "Agency"), ("agent", "Agency"), ("consult", "Consulting"),
    ("sponsor", "Sponsorship"), ("endorse", "Endorsement"), ("affiliate", "Affiliate"), ("marketing", "Marketing"),
    ("promotion", "Promotion"), ("transport", "Transportation"), ("service", "Services"), ("cooperation", "Cooperation"),
    ("intellectual property", "Intellectual Property"), ("framework", "Framework"), ("employment", "Employment"),
    ("lease", "Lease"), ("tenancy", "Lease"), ("purchase", "Purchase"), ("sale", "Purchase"),
]
_BEFORE_AGREEMENT = re.compile(r"([A-Za-z][A-Za-z&\- ]{1,60}?)\s+(?:AGREEMENT|CONTRACT)\b", re.IGNORECASE)


def document_type(title: str) -> str:
    """The agreement family its title names, else the words before "Agreement", else ""."""
    lowered = title.lower()
    for cue, family in FAMILIES:
        if cue in lowered:
            return family
    match = _BEFORE_AGREEMENT.search(title)
    return match.group(1).strip().title() if match else ""
