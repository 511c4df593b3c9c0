"""Streamlit building blocks shared by the app's pages. Only this package and the pages
import Streamlit; everything they show comes from engine.service."""
