"""The review grid and the playbook review over one store, for the service, the pages and the CLI.

Both are consumers of the one question pipeline: a grid cell is a topic read from the
contract's fields or a question asked of one contract (cells.py), and a review verdict is a
playbook rule applied to the cell on its topic (judge.py). The grid is kept with the store
(engine/store/grid_table.py) and each cell is written as soon as it is filled.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from engine.errors import ClausegraphError
from engine.review.cells import CellFiller
from engine.review.judge import judge
from engine.review.playbook import parse_playbook
from engine.review.topics import TOPICS, Topic
from engine.store.grid_table import GridTable
from models.document import Document
from models.review import ContractReview, Grid, GridCell, GridColumn, GridRow, Playbook, Review, Rule

Progress = Callable[[int, int], None]  # (cells done, cells in all)


def preset_columns() -> list[GridColumn]:
    """A column for every topic, in the topics' order."""
    return [topic_column(topic_id) for topic_id in TOPICS]


def topic_column(topic_id: str) -> GridColumn:
    topic = TOPICS[topic_id]
    return GridColumn(id=topic.id, label=topic.label, question=topic.question, topic=topic.id)


def question_column(question: str, label: str | None = None) -> GridColumn:
    """A column for the user's own question; the same words make the same column."""
    words = " ".join(question.split())
    if not words:
        raise ClausegraphError("a grid column needs a question")
    digest = hashlib.sha256(words.lower().encode()).hexdigest()[:10]
    return GridColumn(id=f"q-{digest}", label=label or words, question=words)


def rule_column(rule: Rule) -> GridColumn:
    """The grid column that reads a rule's topic, or asks its question."""
    return topic_column(rule.topic) if rule.topic else question_column(rule.question or "")


def rule_topic(rule: Rule, column: GridColumn) -> Topic:
    """The topic a verdict speaks of: a preset's, or one made of the rule's own question."""
    return TOPICS[rule.topic] if rule.topic else Topic(column.id, column.question.rstrip("?"), column.question)


class ReviewDesk:
    def __init__(self, table: GridTable, filler: CellFiller, documents: Callable[[], list[Document]], playbook_file: Path) -> None:
        self.table = table
        self.filler = filler
        self.documents = documents
        self.playbook_file = playbook_file  # the team's playbook, kept with the library

    # ---------------------------------------------------------------- the library's playbook

    def kept_playbook(self) -> str | None:
        """The YAML of the playbook kept with this library, if one was saved."""
        return self.playbook_file.read_text(encoding="utf-8") if self.playbook_file.is_file() else None

    def keep_playbook(self, text: str) -> Playbook:
        """Check a playbook and keep it with the library, whole or not at all (PlaybookError if bad)."""
        playbook = parse_playbook(text, "your playbook")
        partial = self.playbook_file.with_suffix(".yaml.partial")
        partial.write_text(text, encoding="utf-8")
        partial.replace(self.playbook_file)
        return playbook

    # ---------------------------------------------------------------- the grid

    def columns(self) -> list[GridColumn]:
        return self.table.columns()

    def set_columns(self, columns: list[GridColumn]) -> list[GridColumn]:
        """Keep these columns in this order (a column's cells stay while it does)."""
        distinct = list({c.id: c for c in columns}.values())
        self.table.set_columns(distinct)
        return distinct

    def add_column(self, column: GridColumn) -> list[GridColumn]:
        columns = self.columns()
        return columns if any(c.id == column.id for c in columns) else self.set_columns([*columns, column])

    def clear(self, column_id: str) -> None:
        """Forget a column's cells, so the next fill asks again."""
        self.table.clear(column_id)

    def remove_column(self, column_id: str) -> list[GridColumn]:
        return self.set_columns([c for c in self.columns() if c.id != column_id])

    def grid(self, doc_ids: list[str] | None = None, columns: list[GridColumn] | None = None) -> Grid:
        """The kept grid over these contracts (all when None), cells not filled yet absent;
        with `columns`, those columns instead of the kept ones, with the cells kept for them."""
        documents = self._scope(doc_ids)
        cells: dict[str, dict[str, GridCell]] = {d.doc_id: {} for d in documents}
        columns = columns if columns is not None else self.columns()
        shown = {c.id for c in columns}
        for cell in self.table.cells([d.doc_id for d in documents]):
            if cell.column in shown and cell.doc_id in cells:
                cells[cell.doc_id][cell.column] = cell
        return Grid(columns=columns, rows=[GridRow(doc_id=d.doc_id, file=d.file_name, cells=cells[d.doc_id]) for d in documents])

    def fill(
        self, doc_ids: list[str] | None = None, rerun: str | None = None, on_progress: Progress | None = None,
        columns: list[GridColumn] | None = None,
    ) -> Grid:
        """Fill the kept grid's cells not filled yet (and every cell of column `rerun`), writing
        each contract's row as it is done, so an interruption loses at most one row. With
        `columns` (the command line's questions), answer those instead, reusing cells the grid
        keeps for them but keeping none of the new ones."""
        if rerun is not None:
            self.clear(rerun)
        keep = columns is None
        grid = self.grid(doc_ids, columns)
        todo = [(row, column) for row in grid.rows for column in grid.columns if column.id not in row.cells]
        done = 0
        for row in grid.rows:
            filled = [self.filler.fill(column, row.doc_id) for r, column in todo if r is row]
            if keep:
                self.table.put(filled)
            row.cells.update({cell.column: cell for cell in filled})
            done += len(filled)
            if on_progress is not None and filled:
                on_progress(done, len(todo))
        return grid

    # ---------------------------------------------------------------- the review

    def review(
        self, playbook: Playbook, doc_ids: list[str] | None = None, on_progress: Progress | None = None, reuse_grid: bool = True,
    ) -> Review:
        """Each contract judged rule by rule. A rule's topic is read as the grid's preset
        column reads it; cells the grid already holds for it are reused (unless `reuse_grid`
        is False: a benchmark judges what the engine reads now, not what a grid kept)."""
        documents = self._scope(doc_ids)
        kept = {(c.doc_id, c.column): c for c in self.table.cells([d.doc_id for d in documents])} if reuse_grid else {}
        total, done = len(documents) * len(playbook.rules), 0
        contracts = []
        for document in documents:
            verdicts = []
            for rule in playbook.rules:
                column = rule_column(rule)
                cell = kept.get((document.doc_id, column.id)) or self.filler.fill(column, document.doc_id)
                kept[(document.doc_id, column.id)] = cell
                verdicts.append(judge(rule, rule_topic(rule, column), cell))
                done += 1
                if on_progress is not None:
                    on_progress(done, total)
            contracts.append(ContractReview(doc_id=document.doc_id, file=document.file_name, verdicts=verdicts))
        return Review(playbook=playbook.name, rules=playbook.rules, contracts=contracts)

    def _scope(self, doc_ids: list[str] | None) -> list[Document]:
        documents = sorted(self.documents(), key=lambda d: (d.file_name, d.doc_id))
        if doc_ids is None:
            return documents
        wanted = set(doc_ids)
        return [d for d in documents if d.doc_id in wanted]
