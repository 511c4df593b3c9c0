"""Settings come from preset files: the default preset, single values overridden, a hash of
every value that changes results, and a clear error for a preset that does not exist."""

from __future__ import annotations

import json

import pytest

from engine.cli import main
from engine.errors import StoreLocationError
from engine.settings import PRESETS_DIR, PresetError, Settings, overrides, store_location


def test_the_default_settings_are_the_default_preset_file():
    values = json.loads((PRESETS_DIR / "default.json").read_text())
    settings = Settings()
    assert settings.preset == "default"
    assert settings.model_dump(mode="json", exclude={"preset", "store"}) == values


def test_a_single_value_is_overridden_and_the_rest_kept():
    changed = Settings(retrieval={"budget": 4000})
    assert changed.retrieval.budget == 4000
    assert changed.retrieval.decay == Settings().retrieval.decay and changed.answer == Settings().answer


def test_the_fingerprint_names_the_values_not_the_store():
    default = Settings().fingerprint()
    assert Settings(store="/tmp/elsewhere").fingerprint() == default
    assert Settings(answer={"abstain": {"threshold": 0.5}}).fingerprint() != default


def test_an_unknown_preset_is_a_clear_error(capsys):
    with pytest.raises(PresetError, match="no preset named 'nope'; the presets are: default, large-library"):
        Settings(preset="nope")
    assert main(["--preset", "nope", "list"]) == 1
    assert capsys.readouterr().err == "error: no preset named 'nope'; the presets are: default, large-library\n"


def test_one_value_is_overridden_over_the_preset_and_a_malformed_one_is_refused():
    """What `engine eval --set` does: try one value without writing a preset file."""
    values = overrides(["retrieval.category_weight=0.5", "retrieval.ranking=formula", "answer.abstain.threshold=0.3"])
    assert values == {"retrieval": {"category_weight": 0.5, "ranking": "formula"}, "answer": {"abstain": {"threshold": 0.3}}}
    settings = Settings(**values)
    default = Settings()
    assert (settings.retrieval.category_weight, settings.retrieval.ranking, settings.answer.abstain.threshold) == (0.5, "formula", 0.3)
    assert settings.retrieval.budget == default.retrieval.budget and settings.fingerprint() != default.fingerprint()
    with pytest.raises(PresetError, match="SECTION.NAME=VALUE"):
        overrides(["retrieval.category_weight"])


def test_a_file_url_is_its_folder_an_s3_url_is_a_bucket_and_any_other_url_is_refused_without_its_secrets(tmp_path, monkeypatch):
    assert store_location(f"file://{tmp_path}/my%20library").local == tmp_path / "my library"
    assert store_location(f"file://localhost{tmp_path}").local == tmp_path
    shared = store_location("s3://contracts-bucket//team/lib/")
    assert (shared.url, shared.bucket, shared.prefix, shared.is_remote) == ("s3://contracts-bucket/team/lib", "contracts-bucket", "team/lib", True)
    assert shared.lance_uri == "s3://contracts-bucket/team/lib/lance"
    with pytest.raises(StoreLocationError) as refused:
        store_location("s3://AKIAEXAMPLE:wJalrSECRET@contracts-bucket/team/lib")
    message = str(refused.value)
    assert message.startswith("s3://contracts-bucket/team/lib has credentials written into it; give them in the AWS environment")
    assert "AKIAEXAMPLE" not in message and "wJalrSECRET" not in message
    monkeypatch.setenv("CLAUSEGRAPH_DB", "gs://bucket/lib")
    with pytest.raises(StoreLocationError, match="^gs://bucket/lib is not a folder on this machine or an S3 bucket"):
        store_location()
    with pytest.raises(StoreLocationError, match="^file://fileserver/share is not a folder"):
        store_location("file://fileserver/share")  # a file URL naming another machine
    with pytest.raises(StoreLocationError, match="does not name a valid S3 bucket"):
        store_location("s3://Bad_Bucket/lib")
