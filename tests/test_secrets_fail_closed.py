"""A damaged `.streamlit/secrets.toml` fails closed: no page serves anything, each says which
file and entry is wrong, and `check` exits non-zero with the same words. Only without any
secrets file is access control off, and then every page says so.

Before: each damaged file below left no valid account, and the app took that for "no access
control": `/summary?annotator=mallory` showed the whole summary.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from app.project import access
from app.project.workspace import open_project
from app.types.registry import TYPES
from tests.conftest import components, make_app, write_project

GOOD = access.hash_token("alice-token-0123456789abcdef")
DAMAGED = {
    "empty file": ("", "no [baton] table"),
    "TOML typo": (f'[baton.annotators.alice\ntoken_sha256 = "{GOOD}"\n', "not valid TOML"),
    "misspelt table": (f'[baton.annotator.alice]\ntoken_sha256 = "{GOOD}"\n',
                       'baton.annotator: unknown key; did you mean "annotators"?'),
    "role in the wrong case": (f'[baton.annotators.alice]\ntoken_sha256 = "{GOOD}"\nrole = "Admin"\n',
                               "baton.annotators.alice.role: expected one of annotator, admin, got 'Admin'"),
    "unknown role": (f'[baton.annotators.alice]\ntoken_sha256 = "{GOOD}"\nrole = "root"\n',
                     "baton.annotators.alice.role: expected one of annotator, admin"),
    "space in the digest": (f'[baton.annotators.alice]\ntoken_sha256 = "{GOOD[:30]} {GOOD[31:]}"\n',
                            "baton.annotators.alice.token_sha256: expected 64 hex digits"),
    # one good account does not excuse a bad entry beside it
    "a bad entry beside a good one": (f'[baton.annotators.alice]\ntoken_sha256 = "{GOOD}"\n'
                                      f'[baton.annotators.bob]\ntoken_sha256 = "{GOOD}"\nrol = "admin"\n',
                                      'baton.annotators.bob.rol: unknown key; did you mean "role"?'),
}
def pages_of(cfg: Path) -> list[str]:
    """Every page of the project: home, its schemes' types' pages, the summary."""
    used = open_project(cfg).project.types()
    return ["home"] + sorted({Path(TYPES[t].page).stem for t in used if TYPES[t].page}) + ["summary"]


def damaged_project(tmp_path: Path, text: str) -> Path:
    cfg = write_project(tmp_path)
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "secrets.toml").write_text(text)
    return cfg


def shown(at) -> str:
    return "\n".join(e.value for kind in ("error", "text", "caption") for e in getattr(at, kind))


@pytest.mark.parametrize("case", list(DAMAGED))
def test_a_damaged_secrets_file_serves_nothing_on_any_page(tmp_path, case):
    text, says = DAMAGED[case]
    cfg = damaged_project(tmp_path, text)
    secrets = str(tmp_path / ".streamlit" / "secrets.toml")
    for page in pages_of(cfg):
        at = make_app(cfg, annotator="mallory")
        at.query_params["item"] = "trip-planner-001"
        at.run()
        if page != "home":
            at.switch_page(f"pages/{page}.py")
            at.run()
        assert not at.exception, (case, page, [e.value for e in at.exception])
        assert at.error and "serves nothing" in at.error[0].value, (case, page)
        problem = next(t.value for t in at.text if t.value.startswith(secrets))  # names the file
        assert says in problem, (case, page, problem)
        # nothing of the project is served: no summary, no controls, no trace, no item list
        assert not at.dataframe and not at.radio and not at.checkbox and not at.text_area, (case, page)
        assert not components(at, "baton_figure") and not at.tabs and not at.sidebar.button, (case, page)
        assert "mallory" not in shown(at)


@pytest.mark.parametrize("case", list(DAMAGED))
def test_check_refuses_a_damaged_secrets_file_with_the_same_words(tmp_path, case, capsys, monkeypatch):
    from app.__main__ import main
    text, says = DAMAGED[case]
    cfg = damaged_project(tmp_path, text)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        raise SystemExit(main(["check", str(cfg)]))
    assert exit_.value.code != 0
    err = capsys.readouterr().err
    problems = access.load_access(access.secrets_files(cfg)).problems
    assert problems and all(p in err for p in problems) and says in err, err


def test_a_secrets_file_that_is_a_folder_is_refused(tmp_path):
    cfg = write_project(tmp_path)
    (tmp_path / ".streamlit" / "secrets.toml").mkdir(parents=True)
    cfg_access = access.load_access(access.secrets_files(cfg, cwd=tmp_path))
    assert cfg_access.is_broken and "cannot be read" in cfg_access.problems[0]


def test_without_a_secrets_file_access_is_off_and_every_page_says_so(tmp_path):
    cfg = write_project(tmp_path)
    for page in pages_of(cfg):
        at = make_app(cfg, annotator="alice")
        at.run()
        if page != "home":
            at.switch_page(f"pages/{page}.py")
            at.run()
        assert not at.exception, (page, [e.value for e in at.exception])
        assert any("Access control is off" in c.value for c in at.sidebar.caption), page


def test_good_secrets_say_nothing_of_access_being_off(tmp_path):
    cfg = damaged_project(tmp_path, f'[baton]\nsession_idle_minutes = 30\n'
                                    f'[baton.annotators.alice]\ntoken_sha256 = "{GOOD.upper()}"\n')
    cfg_access = access.load_access(access.secrets_files(cfg, cwd=tmp_path))
    assert not cfg_access.problems and list(cfg_access.accounts) == ["alice"] and cfg_access.idle_minutes == 30
    at = make_app(cfg, annotator="mallory")
    at.run()
    assert not at.exception and not at.error
    assert at.text_input[0].label == "Your access token"
    assert not any("Access control is off" in c.value for c in at.sidebar.caption)


@pytest.mark.parametrize("case", list(DAMAGED))
def test_serve_refuses_to_start_on_a_damaged_secrets_file(tmp_path, case, capsys, monkeypatch):
    """`serve` names the file, the entry and the problem, and exits non-zero before any server
    starts (os.execve is never reached)."""
    from app.__main__ import main
    from app.cli import serve
    text, says = DAMAGED[case]
    cfg = damaged_project(tmp_path, text)
    monkeypatch.chdir(tmp_path)
    started = []
    monkeypatch.setattr(serve.os, "execve", lambda *a: started.append(a))
    code = main(["serve", str(cfg), "--port", "0"])
    assert code != 0 and not started
    err = capsys.readouterr().err
    secrets = str(tmp_path / ".streamlit" / "secrets.toml")
    assert secrets in err and says in err, err


def test_serve_starts_with_good_secrets_and_without_any(tmp_path, monkeypatch):
    from app.__main__ import main
    from app.cli import serve
    cfg = write_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    started = []
    monkeypatch.setattr(serve.os, "execve", lambda *a: started.append(a))
    assert main(["serve", str(cfg), "--port", "0"]) == 0 and len(started) == 1
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "secrets.toml").write_text(f'[baton.annotators.alice]\ntoken_sha256 = "{GOOD}"\n')
    assert main(["serve", str(cfg), "--port", "0"]) == 0 and len(started) == 2
