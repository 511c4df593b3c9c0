"""Contract fields read by rules from a contract's clauses: governing law, and which kinds of
clause it has. Each value keeps the clause and sentence it was read from."""

from engine.fields.extract import extract_fields

__all__ = ["extract_fields"]
