"""Count the words of the dev contracts, for the question spelling corrector (engine/text/spelling.py).

    .venv/bin/python bench/build_contract_words.py      # writes engine/text/contract_words.txt.gz

A general English dictionary corrects "renwal" to "rental" and "contarcts" to "contacts", and
does not know "licensor" or "sublicense". Counted over contracts, "renewal" and "contracts"
win and the trade's words are known, so they are left alone. The words are those of the CUAD
dev contracts' PDF text and the ContractNLI dev NDAs' text, kept when at least
MIN_CONTRACTS contracts use them (a word one contract uses is as likely a name or a typo of
its own). No labels are read: only the contracts' text.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import re
from pathlib import Path

import pymupdf

from common import CUAD, contractnli_dev, cuad_manifest, require_shared_data  # noqa: E402  (puts the project on sys.path)
from engine.text.spelling import WORDS_FILE  # noqa: E402

MIN_CONTRACTS = 3
_WORD = re.compile(r"[a-z]+")


def contract_texts():
    for row in cuad_manifest("dev"):
        with pymupdf.open(CUAD / row["file"]) as pdf:
            yield "\n".join(page.get_text() for page in pdf)
    for nda in contractnli_dev()["documents"]:
        yield nda["text"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=WORDS_FILE)
    args = parser.parse_args()
    require_shared_data()
    occurrences: collections.Counter = collections.Counter()
    contracts: collections.Counter = collections.Counter()
    read = 0
    for text in contract_texts():
        words = _WORD.findall(text.lower())
        occurrences.update(words)
        contracts.update(set(words))
        read += 1
    kept = sorted((w for w in occurrences if contracts[w] >= MIN_CONTRACTS and len(w) >= 2), key=lambda w: (-occurrences[w], w))
    with gzip.open(args.out, "wt", encoding="utf-8") as handle:
        handle.writelines(f"{word} {occurrences[word]}\n" for word in kept)
    print(f"wrote {args.out}: {len(kept)} words used by at least {MIN_CONTRACTS} of {read} contracts")


if __name__ == "__main__":
    main()
