"""Issue 30, point 3 (the UI side): a value a control sends that does not fit its scheme is
checked once, in the save path (app/ui/saving.py), and refused with one message that names the
scheme and the reason; nothing is written. The surfaces of the newer types (number, slider,
select, span, ...) used to check on their own first and say so in a message of their own."""
from __future__ import annotations

from app.types import numeric
from tests.test_potato_types_pages import NUMBER, key, ok, page, project, stored  # noqa: F401  (project: a fixture)


def refusals(at) -> list[str]:
    return [e.value for e in [*at.error, *at.warning] if "not saved" in e.value.lower()]


def test_a_refused_value_is_said_once_with_scheme_and_reason(project, tmp_path, monkeypatch):
    at = page(project, "number")
    # a control that sends what the scheme does not allow (its bounds are 0..100)
    monkeypatch.setattr(numeric, "build", lambda scheme, x: {scheme.name: "500"})
    ok(at.number_input(key=key(NUMBER)).set_value(42).run())
    assert stored(tmp_path, "n") is None
    said = refusals(at)
    assert len(said) == 1, said
    assert "not saved: the value does not fit the scheme “n”" in said[0] and "500" in said[0], said
    monkeypatch.undo()  # a value that fits: saved, and the message goes
    ok(at.number_input(key=key(NUMBER)).set_value(43).run())
    assert stored(tmp_path, "n") == {"n": "43"} and not refusals(at)
