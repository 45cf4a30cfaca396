"""The repository's copies of ../shared/datasets files (tests/conftest.py, COPIES): each has its
dataset's licence beside it, and is byte for byte the original when ../shared is there."""
import pytest

from tests.conftest import COPIES, DATASETS, ROOT, missing

CASES = sorted(COPIES.items())


@pytest.mark.parametrize("rel, copy", CASES, ids=[rel for rel, _ in CASES])
def test_copy_has_its_licence_beside_it(rel, copy):
    assert copy.is_file(), copy
    folders = [copy.parent, copy.parent.parent]  # data/trail/gaia/x.json: data/trail/LICENSE
    assert any((f / "LICENSE").is_file() for f in folders if f != ROOT), f"{copy}: no LICENSE beside it"


@pytest.mark.parametrize("rel, copy", CASES, ids=[rel for rel, _ in CASES])
def test_copy_is_the_original(rel, copy):
    original = DATASETS / rel
    if not original.is_file():
        pytest.skip(missing(rel))
    assert copy.read_bytes() == original.read_bytes(), f"{copy} differs from {original}"
