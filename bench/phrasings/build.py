"""Build the phrasing question files of issue 16 from the hand-written sets beside this script.

    .venv/bin/python bench/phrasings/build.py [--out data/phrasings] [--per-question K] [--limit N]

Writes, in FORMAT.md's form (../shared/bench/FORMAT.md), into the git-ignored folder --out:

- cuad_phrasings.jsonl: every question of cuad_dev.jsonl asked in its own wording (style `cuad`)
  and in K hand-written phrasings of its category (default: all of them);
- enumeration.jsonl: corpus questions over the 60 dev contracts of cuad_dev.jsonl, with the
  contracts that answer them (`gold_docs`);
- contractnli_dev.jsonl and contractnli/pdf/<id>.pdf: ContractNLI's dev NDAs rendered to text PDFs
  and one question per (NDA, hypothesis, phrasing);
- unseen_cuad.jsonl, unseen_contractnli.jsonl and unseen_enumeration.jsonl: the same questions
  and "find all" requests asked in the phrasings of unseen_wording.json, written by six writers
  who saw none of the other sets, and which no model is trained on: wording the project never saw;
  reserve_cuad.jsonl, reserve_contractnli.jsonl and reserve_enumeration.jsonl the same in
  reserve_wording.json's phrasings;
- training_cuad.jsonl and training_contractnli.jsonl: the same questions asked in the
  training-only phrasings of training_questions.json (K per question, --training-per-question),
  for fitting models that are then measured on the files above (bench/train_lead_model.py).

Every file's `docs` are relative to --out (its `cuad/` and `public/` link to the shared data), so
the harness reads any of them, and ../shared/bench's multi-hop sets, with `--data <out>`.

Standard library and pymupdf only: this must not import the project's `engine` package.
"""

from __future__ import annotations

import argparse
import collections
import functools
import html
import json
import random
import re
import sys
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
STYLES = ("plain", "legal", "yesno", "keyword", "party", "scenario", "typo")
LINKED = ("cuad", "public")  # the shared data's contract folders, linked into --out
TRAINING_TAG = "train/"  # phrasing ids of the training-only set: train/<category>/NN
#: Wording sets that are only measured, never trained on (README.md), by the prefix of their
#: files and phrasing ids: unseen_cuad.jsonl, unseen/<category>/NN. The reserve is measured once
#: per decision, after the decision is fixed, so that its figures stay held out.
HELD_OUT_WORDINGS = {"unseen": "unseen_wording.json", "reserve": "reserve_wording.json"}

# Party names: generic role words a contract uses for a party. They are a last resort for
# {party}/{other}, after a proper short name ("Aduro") or the company name without its suffix.
GENERIC_ALIASES = {
    "company", "licensor", "licensee", "consultant", "agent", "customer", "distributor", "contractor",
    "seller", "buyer", "sponsor", "reseller", "principal", "issuer", "transporter", "shipper",
    "corporation", "association", "bank", "franchisee", "master franchisee", "marketing affiliate",
    "business affiliate", "operating company", "network affiliate", "affiliate", "supplier", "client",
    "u.s. affiliate", "broker dealer", "provider", "vendor", "purchaser", "manufacturer",
}
PARTYISH = re.compile(r"^(?:each |a |an |the )?(?:party|parties|member|members)$", re.I)
PRONOUNS = {"we", "us", "our", "you", "your"}
SUFFIXES = re.compile(
    r"(?:,?\s+(?:inc|incorporated|llc|l\.l\.c|ltd|limited|corp|corporation|co|l\.p|lp|plc|s\.a|sa|b\.v|ag|gmbh|n\.a|n\.d)\.?)+$",
    re.I,
)
MAX_PARTIES = 8  # more named parties than this (consortia, fund families): no sensible pair to ask about


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def normalise(text: str) -> str:
    """FORMAT.md's normalisation: NFKC, lower case, curly quotes straight, non-alphanumerics to one space."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = text.replace("\u201c", '"').replace("\u201d", '"').replace("\u2018", "'").replace("\u2019", "'")
    return re.sub(r"[^0-9a-z]+", " ", text).strip()


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


# ---------------------------------------------------------------- party names

def _tidy_case(name: str) -> str:
    """ADAMS GOLF -> Adams Golf; short all-capital names (HCI, BISYS) are acronyms and stay."""
    words = name.split()
    if not words or name.upper() != name or not any(c.isalpha() for c in name):
        return name
    if len(words) == 1 and (len(name) <= 5 or re.search(r"[B-DF-HJ-NP-TV-Z]{3}", name)):
        return name  # PHLVIC
    small = {"AND": "and", "OF": "of", "THE": "the", "DR.": "Dr.", "MR.": "Mr.", "MS.": "Ms."}
    tidy = [small.get(w) or (w if not re.search(r"[AEIOUY]", w) else w.capitalize()) for w in words]
    return " ".join([tidy[0][:1].upper() + tidy[0][1:], *tidy[1:]])


def _short_company_name(name: str) -> str:
    name = re.split(r"\s+d/b/a\s+", name, flags=re.I)[-1]
    name = re.sub(r"\s+and its affiliates.*$", "", name, flags=re.I)
    previous = None
    while previous != name:
        previous = name
        name = SUFFIXES.sub("", name).strip(" ,;:.").split(",")[0].strip()
        if re.search(r"[^&]\s+company$", name, re.I) and len(name.split()) > 2:
            name = re.sub(r"\s+company$", "", name, flags=re.I)
    return _tidy_case(name)


def party_names(normalized_answer: str) -> list[str]:
    """Short names of a contract's parties, in the order the Parties label gives them."""
    names: list[str] = []
    for segment in normalized_answer.split(";"):
        segment = re.sub(r"\s+", " ", segment).strip().lstrip("(").strip()
        if not segment:
            continue
        aliases = [a.strip(" ,.:;()") for a in re.findall(r"[\"\u201c]([^\"\u201c\u201d]+)[\"\u201d]", segment)]
        aliases = [a for a in aliases if a and not PARTYISH.match(a) and a.lower() not in PRONOUNS]
        name = re.split(r"[(\"\u201c]", segment, maxsplit=1)[0].strip(" ,;:")
        lowered = segment.lower()
        if not aliases and (" and " in name.lower() or "collectively" in lowered or "individually" in lowered):
            continue  # "Ginkgo and BLI (each a "Party")": the parties together, not one more party
        # the name a party is defined by comes right after its full name: ("Aduro"); later ones
        # ("ExxonMobil Selling Affiliate") name something else
        proper = aliases[:1] if aliases and aliases[0].lower() not in GENERIC_ALIASES and len(aliases[0]) <= 40 and "[" not in aliases[0] else []
        short = _short_company_name(name) if name and "[" not in name else ""
        if proper:
            chosen = _tidy_case(proper[0])
        elif short and len(short.split()) <= 5:
            chosen = short
        elif aliases:
            chosen = aliases[0]
        else:
            chosen = short
        if chosen and chosen.lower() not in {n.lower() for n in names}:
            names.append(chosen)
    return names


def party_pair(label: dict | None) -> tuple[str, str] | None:
    if not label or not label.get("answerable"):
        return None
    names = party_names(label.get("normalized_answer") or "")
    if len(names) < 2 or len(names) > MAX_PARTIES:
        return None
    return names[0], names[1]


# ---------------------------------------------------------------- cuad phrasings

def pick(phrasings: list[dict], k: int | None, seed: str) -> list[dict]:
    """K phrasings spread over the styles, the same K for the same question on every run."""
    if k is None or k >= len(phrasings):
        return list(phrasings)
    rng = random.Random(seed)
    by_style: dict[str, list[dict]] = collections.defaultdict(list)
    for p in phrasings:
        by_style[p["style"]].append(p)
    styles = sorted(by_style)
    rng.shuffle(styles)
    for group in by_style.values():
        rng.shuffle(group)
    chosen: list[dict] = []
    while len(chosen) < k:
        for style in styles:
            if by_style[style] and len(chosen) < k:
                chosen.append(by_style[style].pop())
    order = {id(p): i for i, p in enumerate(phrasings)}
    return sorted(chosen, key=lambda p: order[id(p)])


def cuad_phrasings() -> dict[str, list[dict]]:
    """The evaluation phrasings of each CUAD category."""
    spec = json.loads((HERE / "cuad_categories.json").read_text(encoding="utf-8"))["categories"]
    return {category: entry["phrasings"] for category, entry in spec.items()}


def training_phrasings() -> tuple[dict[str, list[dict]], dict[str, list[dict]]]:
    """The training-only phrasings: of each CUAD category, and of each ContractNLI hypothesis."""
    spec = json.loads((HERE / "training_questions.json").read_text(encoding="utf-8"))
    return spec["categories"], spec["nda"]


def held_out_phrasings(file: str) -> tuple[dict[str, list[dict]], dict[str, list[dict]], dict[str, list[dict]]]:
    """A held-out wording set (unseen_wording.json, reserve_wording.json): its phrasings of each
    CUAD category, of each ContractNLI hypothesis, and of each "find all" target."""
    spec = json.loads((HERE / file).read_text(encoding="utf-8"))
    return spec["categories"], spec["nda"], spec["listings"]


def build_cuad(shared: Path, labels: dict, per_question: int | None, stats: dict,
               phrasings: dict[str, list[dict]] | None = None, tag: str = "") -> list[dict]:
    """`phrasings`: category -> phrasings (default: the evaluation ones, with each question's own
    cuad_dev wording as style `cuad`); `tag` prefixes the phrasing ids of another set."""
    spec = json.loads((HERE / "cuad_categories.json").read_text(encoding="utf-8"))["categories"]
    fixed = json.loads((shared / "bench" / "cuad_phrasing.json").read_text(encoding="utf-8"))
    for category, wording in fixed.items():
        if spec.get(category, {}).get("cuad") != wording:
            print(f"warning: cuad_categories.json's wording of {category!r} differs from cuad_phrasing.json", file=sys.stderr)
    own_wording = phrasings is None
    phrasings = phrasings or cuad_phrasings()
    rows = []
    for q in read_jsonl(shared / "bench" / "cuad_dev.jsonl"):
        category = q["category"]
        contract = Path(q["docs"][0]).stem
        base = {k: q[k] for k in ("docs", "answerable", "hops", "type", "evidence", "answer")}
        if own_wording:
            rows.append({"id": f"{q['id']}/cuad", **base, "question": q["question"], "category": category,
                         "style": "cuad", "phrasing": f"{slug(category)}/cuad", "source_id": q["id"]})
        numbered = [dict(p, phrasing=f"{tag}{slug(category)}/{i:02d}") for i, p in enumerate(phrasings[category], 1)]
        pair = party_pair(labels.get((contract, "Parties")))
        for p in pick(numbered, per_question, q["id"] + tag):
            text = p["text"]
            row = {"id": f"{q['id']}/{p['phrasing']}", **base}
            if "{party}" in text or "{other}" in text:
                if pair is None:
                    stats["skipped_no_parties"] += 1
                    stats["contracts_without_parties"].add(contract)
                    continue
                text = text.replace("{party}", pair[0]).replace("{other}", pair[1])
                row["parties"] = list(pair)
            row.update(question=text, category=category, style=p["style"], phrasing=p["phrasing"], source_id=q["id"])
            rows.append(row)
    return rows


# ---------------------------------------------------------------- enumeration

def law_parts(label: dict) -> list[str]:
    return [part.strip() for part in (label.get("normalized_answer") or "").split(";") if part.strip()]


def build_enumeration(shared: Path, labels: dict, stats: dict, phrasings: dict[str, list[dict]] | None = None, tag: str = "") -> list[dict]:
    """`phrasings`: target -> requests (default: enumeration.json's); `tag` prefixes the ids of another set."""
    spec = phrasings or json.loads((HERE / "enumeration.json").read_text(encoding="utf-8"))["targets"]
    docs: list[str] = []
    for q in read_jsonl(shared / "bench" / "cuad_dev.jsonl"):
        if q["docs"][0] not in docs:
            docs.append(q["docs"][0])
    contracts = {Path(d).stem: d for d in docs}

    def answered(category: str) -> dict[str, dict]:
        out = {}
        for contract, doc in contracts.items():
            label = labels.get((contract, category))
            if label and label["answerable"]:
                out[doc] = label
        return out

    # Governing law: a contract is gold for a law named in its label's normalised answer
    # ("Texas; Singapore; Belgium" counts for each); where that is blank, the law named in the text.
    governed = answered("Governing Law")
    counts = collections.Counter(part for label in governed.values() for part in law_parts(label))
    laws = sorted((law for law, n in counts.items() if n >= 3 and "*" not in law), key=lambda law: (-counts[law], law))
    stats["laws"] = {}
    targets = []
    for law in laws:
        gold = {doc: label for doc, label in governed.items()
                if law in law_parts(label)
                or (not law_parts(label) and any(law.lower() in a["text"].lower() for a in label["answers"]))}
        stats["laws"][law] = len(gold)
        targets.append(("Governing Law", law, gold))
    for category in spec:
        if category != "Governing Law":
            targets.append((category, None, answered(category)))

    rows = []
    for category, law, gold in targets:
        target_slug = slug(category if law is None else f"{category} {law}")
        evidence = [{"doc": doc, **a} for doc in docs if doc in gold for a in gold[doc]["answers"]]
        gold_docs = [doc for doc in docs if doc in gold]
        for i, p in enumerate(spec[category], 1):
            n = len(gold_docs)
            answer = {"count": str(n), "any": "Yes" if n else "No"}.get(p["form"], f"{n} contracts")
            row = {"id": f"enum/{tag}{target_slug}/{i:02d}", "docs": docs,
                   "question": p["text"].replace("{law}", law) if law else p["text"],
                   "answerable": n > 0, "hops": 1, "type": "enumeration", "evidence": evidence, "answer": answer,
                   "target": category, "style": p["style"], "form": p["form"],
                   "phrasing": f"{tag}{slug(category)}/{i:02d}", "gold_docs": gold_docs, "gold_count": n}
            if law:
                row["law"] = law
            rows.append(row)
    return rows


# ---------------------------------------------------------------- contractnli

PAGE_CSS = "body {font-family: sans-serif; font-size: 10.5pt; line-height: 1.3;} p {margin: 0 0 7pt 0;}"


@functools.cache  # the evaluation, training and unseen files ask of the same NDAs: each is rendered once
def render_nda(text: str, path: Path) -> list[str]:
    """Render an NDA's text to a Letter-size text PDF, one paragraph per line of the source;
    returns the normalised text of each page."""
    import pymupdf

    paragraphs = [line.replace("\uf0b7", "\u2022").replace("\u200b", "").strip() for line in text.split("\n")]
    body = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs if p)
    story = pymupdf.Story(html=body, user_css=PAGE_CSS)
    mediabox = pymupdf.paper_rect("letter")
    where = mediabox + (72, 72, -72, -72)
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = pymupdf.DocumentWriter(str(path))
    more = 1
    while more:
        device = writer.begin_page(mediabox)
        more, _ = story.place(where)
        story.draw(device)
        writer.end_page()
    writer.close()
    with pymupdf.open(path) as doc:
        return [normalise(page.get_text()) for page in doc]


def locate(snippet: str, pages: list[str]) -> tuple[int, int] | None:
    """1-based (page, page_end) of a snippet in the rendered pages' normalised text, or None."""
    joined, starts = "", []
    for text in pages:
        starts.append(len(joined))
        joined += text + " "
    at = joined.find(normalise(snippet))
    if not normalise(snippet) or at < 0:
        return None
    end = at + len(normalise(snippet)) - 1

    def page_of(offset: int) -> int:
        return max(i for i, s in enumerate(starts) if s <= offset) + 1

    return page_of(at), page_of(end)


def build_contractnli(shared: Path, out: Path, per_question: int | None, limit: int | None, stats: dict,
                      phrasings: dict[str, list[dict]] | None = None, tag: str = "") -> list[dict]:
    """`phrasings`: hypothesis key -> phrasings (default: the evaluation ones); `tag` prefixes
    the phrasing ids of another set."""
    spec = json.loads((HERE / "contractnli.json").read_text(encoding="utf-8"))["hypotheses"]
    phrasings = phrasings or {key: entry["phrasings"] for key, entry in spec.items()}
    data = json.loads((shared / "data" / "contractnli" / "dev.json").read_text(encoding="utf-8"))
    for key, label in data["labels"].items():
        if spec.get(key, {}).get("hypothesis") != label["hypothesis"]:
            print(f"warning: contractnli.json's hypothesis {key} differs from dev.json", file=sys.stderr)
    documents = data["documents"][:limit] if limit is not None else data["documents"]
    rows = []
    for nda in documents:
        doc_path = f"contractnli/pdf/{nda['id']}.pdf"
        pages = render_nda(nda["text"], out / doc_path)
        stats["pdfs"] += 1
        stats["pages"] += len(pages)
        for key, annotation in sorted(nda["annotation_sets"][0]["annotations"].items(), key=lambda kv: int(kv[0].split("-")[1])):
            evidence = []
            for index in annotation["spans"]:
                start, end = nda["spans"][index]
                snippet = nda["text"][start:end].strip()
                if not normalise(snippet):
                    stats["spans_without_words"] += 1  # a span of underscores or nothing: nothing to find
                    continue
                where = locate(snippet, pages)
                stats["spans"] += 1
                item = {"text": snippet, "page": where[0] if where else None}
                if where and where[1] != where[0]:
                    item["page_end"] = where[1]
                if where:
                    stats["spans_found"] += 1
                evidence.append(item)
            if annotation["choice"] != "NotMentioned" and not evidence:
                stats["answerable_without_evidence"] += 1
            numbered = [dict(p, phrasing=f"{tag}{key}/{i:02d}") for i, p in enumerate(phrasings[key], 1)]
            for p in pick(numbered, per_question, f"{nda['id']}/{key}{tag}"):
                rows.append({"id": f"cnli-dev/{nda['id']}/{p['phrasing']}", "docs": [doc_path], "question": p["text"],
                             "answerable": annotation["choice"] != "NotMentioned", "hops": 1, "type": "clause",
                             "evidence": evidence, "answer": annotation["choice"],
                             "hypothesis": key, "label": annotation["choice"], "style": p["style"],
                             "phrasing": p["phrasing"]})
    return rows


# ---------------------------------------------------------------- main

def new_stats() -> dict:
    return {"skipped_no_parties": 0, "contracts_without_parties": set(), "pdfs": 0, "pages": 0, "spans": 0,
            "spans_found": 0, "spans_without_words": 0, "answerable_without_evidence": 0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("data/phrasings"),
                        help="output folder (default data/phrasings/, relative to the project root)")
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared", help="the shared folder (default ../shared)")
    parser.add_argument("--per-question", type=int, default=None, metavar="K",
                        help="phrasings per cuad_dev question and per (NDA, hypothesis) (default: all)")
    parser.add_argument("--limit", type=int, default=None, metavar="N", help="render only the first N ContractNLI NDAs")
    parser.add_argument("--training-per-question", type=int, default=4, metavar="K",
                        help="training-only phrasings per cuad_dev question and per (NDA, hypothesis) in the training files (default 4)")
    parser.add_argument("--every", type=int, default=1, metavar="N",
                        help="a sample: keep every Nth contract (and NDA) in file-name order, and write their ids to sample_docs.txt")
    args = parser.parse_args(argv)
    out = args.out if args.out.is_absolute() else ROOT / args.out
    shared = args.shared

    labels = {(r["id"], r["category"]): r for r in read_jsonl(shared / "data" / "cuad" / "labels.jsonl")}
    stats = new_stats()
    files = {
        "cuad_phrasings.jsonl": build_cuad(shared, labels, args.per_question, stats),
        "enumeration.jsonl": build_enumeration(shared, labels, stats),
        "contractnli_dev.jsonl": build_contractnli(shared, out, args.per_question, args.limit, stats),
    }
    categories, hypotheses = training_phrasings()
    unreported = new_stats()  # the training files' counts are not reported beside the evaluation's
    training = {
        "training_cuad.jsonl": build_cuad(shared, labels, args.training_per_question, unreported, categories, TRAINING_TAG),
        "training_contractnli.jsonl": build_contractnli(shared, out, args.training_per_question, args.limit, unreported, hypotheses, TRAINING_TAG),
    }
    held_out = {}  # measured, never trained on: see README.md
    for name, file in HELD_OUT_WORDINGS.items():
        categories, hypotheses, listings = held_out_phrasings(file)
        tag = f"{name}/"
        held_out[f"{name}_enumeration.jsonl"] = build_enumeration(shared, labels, new_stats(), listings, tag)
        held_out[f"{name}_cuad.jsonl"] = build_cuad(shared, labels, None, new_stats(), categories, tag)
        held_out[f"{name}_contractnli.jsonl"] = build_contractnli(shared, out, None, args.limit, new_stats(), hypotheses, tag)
    if args.every > 1:  # a reproducible sample of contracts; the enumeration keeps all (it asks over all of them)
        kept = set()
        for name in ("cuad_phrasings.jsonl", "contractnli_dev.jsonl"):
            kept |= set(sorted({r["docs"][0] for r in files[name]})[:: args.every])
        for group in (files, training, held_out):
            for name in group:
                if "enumeration" not in name:
                    group[name] = [r for r in group[name] if r["docs"][0] in kept]
        sample = sorted({Path(r["docs"][0]).stem for r in files["cuad_phrasings.jsonl"]})
        sample += sorted({f"contractnli:{Path(r['docs'][0]).stem}" for r in files["contractnli_dev.jsonl"]})
        out.mkdir(parents=True, exist_ok=True)
        (out / "sample_docs.txt").write_text("\n".join(sample) + "\n")
    first = ("id", "docs", "question", "answerable", "hops", "type", "evidence", "answer")
    for name, rows in {**files, **training, **held_out}.items():
        write_jsonl(out / name, [{**{k: r[k] for k in first}, **r} for r in rows])
    for folder in LINKED:  # so every file's docs, and the multi-hop sets', resolve against --out alone
        link = out / folder
        if not link.exists() and (shared / "data" / folder).is_dir():
            link.symlink_to((shared / "data" / folder).resolve(), target_is_directory=True)

    print(f"wrote {out}")
    for name, rows in files.items():
        styles = collections.Counter(r["style"] for r in rows)
        answerable = sum(r["answerable"] for r in rows)
        print(f"  {name}: {len(rows)} questions ({answerable} answerable); by style: "
              + ", ".join(f"{s} {styles[s]}" for s in ("cuad", *STYLES) if styles[s]))
    print(f"  cuad: {stats['skipped_no_parties']} party phrasings skipped (no usable party names) on "
          f"{len(stats['contracts_without_parties'])} contracts: {', '.join(sorted(stats['contracts_without_parties'])) or '-'}")
    targets = collections.Counter(r["target"] for r in files["enumeration.jsonl"])
    print(f"  enumeration: {len(targets)} targets; laws with >= 3 gold contracts: "
          + ", ".join(f"{law} {n}" for law, n in stats["laws"].items()))
    share = stats["spans_found"] / stats["spans"] if stats["spans"] else 0.0
    print(f"  contractnli: {stats['pdfs']} NDAs rendered ({stats['pages']} pages); evidence spans found in the "
          f"rendered page text: {stats['spans_found']}/{stats['spans']} ({share:.1%}); "
          f"{stats['spans_without_words']} spans without words dropped; "
          f"{stats['answerable_without_evidence']} answerable (NDA, hypothesis) pairs left without evidence")
    for name, rows in held_out.items():
        styles = collections.Counter(r["style"] for r in rows)
        print(f"  {name} (held-out wording, never trained on): {len(rows)} questions ({sum(r['answerable'] for r in rows)} answerable); by style: "
              + ", ".join(f"{s} {styles[s]}" for s in STYLES if styles[s]))
    for name, rows in training.items():
        print(f"  {name} (training only, never measured on): {len(rows)} questions ({sum(r['answerable'] for r in rows)} answerable)")
    print(f"  every file's docs are relative to {out} (its {' and '.join(LINKED)} link to the shared data): run the harness with --data {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
