"""The one Library per store that every page and session shares."""

from __future__ import annotations

import sys

import streamlit as st

from engine.service import Library
from engine.settings import store_path


def store_argument() -> str | None:
    """`streamlit run app.py -- --db DIR` picks the store; else $CLAUSEGRAPH_DB or data/store."""
    args = sys.argv[1:]
    if "--db" in args and args.index("--db") + 1 < len(args):
        return args[args.index("--db") + 1]
    return None


@st.cache_resource(show_spinner="Opening the contract library…")
def _library(store_dir: str) -> Library:
    return Library(store_dir)


def library() -> Library:
    return _library(str(store_path(store_argument())))
