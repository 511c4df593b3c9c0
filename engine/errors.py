"""Errors the engine raises on purpose, with messages written for the person using the app."""


class ClausegraphError(Exception):
    """Base for every error whose message is fit to show a user as it is."""


class IngestError(ClausegraphError):
    """A file could not be ingested; the message says why in plain words."""


class NotFoundError(ClausegraphError):
    """A document or clause named by the user does not exist in the store."""


class EmbeddingMismatchError(ClausegraphError):
    """The store's vectors were made by another embedding model than the one configured."""


class StoreLocationError(ClausegraphError):
    """The store location names a place this app cannot keep a library in, or a bucket it cannot use."""
