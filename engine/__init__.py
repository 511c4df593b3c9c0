"""Clausegraph's engine: ingest, store, search and answer, with no Streamlit and no internet."""

from engine import offline as _offline  # noqa: F401  (first: before any library that could phone home is imported)
