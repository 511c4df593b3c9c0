"""A corpus of hostile inputs, generated on the spot: files a real user will one day drop in.

Every file is made here with PyMuPDF or by hand (never downloaded), small on disk even when
it is meant to be heavy in memory: the huge image is a 10,000 x 10,000 picture that
compresses to a few hundred kilobytes, so only the reader that decodes it pays.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path

import pymupdf

from tests.conftest import MUTUAL_NDA
from tests.pdfmaker import make_pdf

UNICODE_NAME = "Vertrag_Überprüfung_合同_договор.pdf"
# 251 characters with ".pdf": near the 255-byte limit of most file systems on file names
LONG_NAME = ("Master_Services_Agreement_" + "between_the_Supplier_and_the_Customer_" * 6)[:234] + "_final_signed.pdf"
BIG_BOOK_PAGES = 1500
BIG_BOOK_PAGES_PER_ARTICLE = 30  # so 50 articles, one clause each
GIANT_LINE_CHARS = 200_000
HUGE_IMAGE_SIDE = 10_000


def contract_lines(title: str, clauses: int = 3) -> list[str]:
    """A short numbered contract whose words make its bytes differ from any other's."""
    lines = [title.upper(), ""]
    for number in range(1, clauses + 1):
        lines += [
            f"{number}. Clause {number} of the {title}",
            f">The Supplier shall perform obligation {number} of the {title} with reasonable care.",
        ]
    return lines


@dataclass(frozen=True)
class HostileCorpus:
    """Where each hostile file was written; names are what a user would see."""

    folder: Path
    owner_password: Path
    user_password: Path
    truncated: Path
    empty: Path
    text_named_pdf: Path
    zero_pages: Path
    big_book: Path
    huge_image: Path
    giant_line: Path
    unicode_name: Path
    long_name: Path

    def batch(self) -> list[Path]:
        """Every hostile file once, plus the unicode-named one twice (the same file twice)."""
        return [
            self.owner_password, self.user_password, self.truncated, self.empty, self.text_named_pdf,
            self.zero_pages, self.big_book, self.huge_image, self.giant_line, self.unicode_name,
            self.long_name, self.unicode_name,
        ]


def build_corpus(folder: Path, giant_line_chars: int = GIANT_LINE_CHARS) -> HostileCorpus:
    """Every hostile file in `folder`. The giant line's length is a parameter because
    embedding it costs time in proportion (about 75 s for 200,000 characters on two cores)."""
    folder.mkdir(parents=True, exist_ok=True)
    return HostileCorpus(
        folder=folder,
        owner_password=owner_password_pdf(folder / "owner-password-only.pdf"),
        user_password=user_password_pdf(folder / "needs-a-password.pdf"),
        truncated=truncated_pdf(folder / "cut-in-half.pdf"),
        empty=empty_file(folder / "empty.pdf"),
        text_named_pdf=text_named_pdf(folder / "meeting-notes.pdf"),
        zero_pages=zero_page_pdf(folder / "no-pages.pdf"),
        big_book=big_book_pdf(folder / "1500-pages.pdf"),
        huge_image=huge_image_pdf(folder / "huge-image.pdf"),
        giant_line=giant_line_pdf(folder / "one-giant-line.pdf", giant_line_chars),
        unicode_name=make_pdf(folder / UNICODE_NAME, [contract_lines("Vertrag über Wartung")]),
        long_name=make_pdf(folder / LONG_NAME, [contract_lines("Long Named Services Agreement")]),
    )


def _protected(path: Path, title: str, **passwords: str) -> Path:
    document = pymupdf.open()
    page = document.new_page(width=612, height=792)
    for row, line in enumerate(contract_lines(title)):
        page.insert_text((72, 72 + row * 15), line.lstrip(">"), fontsize=10.5)
    document.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, **passwords)
    return path


def owner_password_pdf(path: Path) -> Path:
    """Encrypted with an owner password only: anyone can open and read it; its permission
    flags ask readers not to copy or edit it, which a reader may honour or not."""
    return _protected(path, "Owner Locked Supply Agreement", owner_pw="owner-secret", permissions=pymupdf.PDF_PERM_PRINT)


def user_password_pdf(path: Path) -> Path:
    """Encrypted with a user password: it cannot be opened without it."""
    return _protected(path, "Secret Supply Agreement", owner_pw="owner-secret", user_pw="open-sesame")


def truncated_pdf(path: Path) -> Path:
    """A real contract cut off halfway, as an interrupted download leaves it."""
    data = MUTUAL_NDA.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def empty_file(path: Path) -> Path:
    path.write_bytes(b"")
    return path


def text_named_pdf(path: Path) -> Path:
    path.write_text("Minutes of the meeting of 3 March\n1. The parties agreed to meet again.\n", encoding="utf-8")
    return path


def zero_page_pdf(path: Path) -> Path:
    """A well-formed PDF whose page tree is empty (PyMuPDF refuses to save one, so by hand)."""
    return _write_raw_pdf(path, [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"])


def _write_raw_pdf(path: Path, objects: list[bytes]) -> Path:
    """Objects 1..n with a correct cross-reference table, so no reader needs to repair it."""
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(bytes(out))
    return path


_TOPICS = (
    "Payment", "Delivery", "Acceptance", "Warranty", "Liability", "Indemnity", "Insurance", "Confidentiality",
    "Termination", "Assignment", "Notices", "Audit", "Records", "Security", "Personnel", "Subcontracting",
    "Intellectual Property", "Data Protection", "Force Majeure", "Disputes", "Variation", "Invoicing",
    "Service Levels", "Reporting", "Escrow", "Exit Management", "Publicity", "Anti-Bribery", "Health and Safety",
    "Environment", "Equality", "Transfer of Staff", "Step-In Rights", "Benchmarking", "Continuous Improvement",
    "Governance", "Key Personnel", "Business Continuity", "Customer Premises", "Third Party Rights",
)


def big_book_pdf(path: Path, pages: int = BIG_BOOK_PAGES) -> Path:
    """A 1,500-page contract: 50 articles of 30 pages, a short line on each page. The line
    names the article's topic, so no line repeats on most pages as a running header would.
    (Embedding costs time per word, so a page of this book costs a test what a sentence does.)"""
    document = pymupdf.open()
    for index in range(pages):
        article, page_in_article = divmod(index, BIG_BOOK_PAGES_PER_ARTICLE)
        topic = _TOPICS[article % len(_TOPICS)]
        page = document.new_page(width=612, height=792)
        if page_in_article == 0:
            page.insert_text((72, 72), f"{article + 1}. {topic.upper()}", fontsize=12)
        page.insert_text((72, 90), f"{topic} item {index + 1}.", fontsize=10)
    document.save(path, garbage=1, deflate=True)
    return path


def huge_image_pdf(path: Path, side: int = HUGE_IMAGE_SIDE) -> Path:
    """A page of contract text with a 10,000 x 10,000 grey picture (100 MB once decoded)."""
    document = pymupdf.open()
    page = document.new_page(width=612, height=792)
    for row, line in enumerate(contract_lines("Site Plan Lease Agreement")):
        page.insert_text((72, 72 + row * 15), line.lstrip(">"), fontsize=10.5)
    page.insert_text((72, 700), "Schedule 1: plan of the premises (above)", fontsize=10.5)
    # Insert a tiny placeholder image, then swap in the huge one's stream: building a
    # 10,000 x 10,000 Pixmap here would cost the test the memory the reader must not.
    placeholder = pymupdf.Pixmap(pymupdf.csGRAY, pymupdf.IRect(0, 0, 1, 1), False)
    xref = page.insert_image(pymupdf.Rect(72, 300, 540, 680), pixmap=placeholder)
    compressor = zlib.compressobj(9)
    row = bytes(range(256)) * (side // 256) + bytes(side % 256)
    stream = b"".join(compressor.compress(row) for _ in range(side)) + compressor.flush()
    document.update_stream(xref, stream, compress=False)
    for key, value in (("Width", str(side)), ("Height", str(side)), ("Filter", "/FlateDecode"), ("DecodeParms", "null"), ("SMask", "null")):
        document.xref_set_key(xref, key, value)
    document.save(path)
    return path


def giant_line_text(chars: int = GIANT_LINE_CHARS) -> str:
    """Words, never a line break: `chars` characters of them, less a space the cut may end on."""
    phrases = (f"term {number} shall apply and the Supplier shall comply" for number in range(chars // 40 + 1))
    return " ".join(phrases)[:chars].rstrip()


def giant_line_pdf(path: Path, chars: int = GIANT_LINE_CHARS) -> Path:
    """One line of 200,000 characters (by default) on a page as wide as the line: about
    90,000 points, 30 metres. (Squeezing the line onto a normal page instead makes the
    glyphs overlap, and the reader drops overlapping repeats such as the second l of "shall".)"""
    text = giant_line_text(chars)
    width = pymupdf.get_text_length(text, fontname="helv", fontsize=1)
    document = pymupdf.open()
    page = document.new_page(width=width + 144, height=200)
    page.insert_text((72, 50), "GIANT LINE AGREEMENT", fontsize=12)
    page.insert_text((72, 100), text, fontsize=1)
    document.save(path, deflate=True)
    return path
