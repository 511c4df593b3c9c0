"""Contract fields read by rules from a contract's clauses: governing law, and which kinds of
clause it has. Each value keeps the clause and sentence it was read from."""

from engine.fields.extract import extract_fields

# Stored with each contract's fields; a store holding another version is re-read from its clauses.
EXTRACTOR_VERSION = "fields-12"

__all__ = ["EXTRACTOR_VERSION", "extract_fields"]
