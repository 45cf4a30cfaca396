"""Access control: hashed tokens, constant-time checks, rotating one-time session tickets."""
from app import access
from app.storage import AnnotationStore
from tests.conftest import make_app, open_page, write_project

TOKENS = {"alice": "alice-token-0123456789abcdef", "root": "root-token-0123456789abcdef"}


def secure_project(tmp_path):
    cfg = write_project(tmp_path)
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "secrets.toml").write_text(
        f'[baton.annotators.alice]\ntoken_sha256 = "{access.hash_token(TOKENS["alice"])}"\n'
        f'[baton.annotators.root]\ntoken_sha256 = "{access.hash_token(TOKENS["root"])}"\nrole = "admin"\n')
    return cfg


def test_accounts_and_authentication(tmp_path):
    secure_project(tmp_path)
    accounts, problems = access.load_accounts(access.secrets_files(tmp_path / "project.yaml", cwd=tmp_path))
    assert problems == [] and set(accounts) == {"alice", "root"}
    assert accounts["root"].is_admin and not accounts["alice"].is_admin
    assert access.authenticate(accounts, TOKENS["alice"]).name == "alice"
    assert access.authenticate(accounts, "wrong") is None
    assert access.authenticate(accounts, "") is None


def test_bad_secrets_are_reported(tmp_path):
    f = tmp_path / "secrets.toml"
    f.write_text('[baton.annotators.bob]\ntoken_sha256 = "abc"\n[baton.annotators.eve]\n'
                 f'token_sha256 = "{"0" * 64}"\nrole = "god"\n')
    accounts, problems = access.load_accounts([f])
    assert accounts == {}
    assert any("baton.annotators.bob.token_sha256: expected 64 hex digits" in p for p in problems)
    assert any("baton.annotators.eve.role" in p for p in problems)


def test_tickets_are_one_time_and_expire(tmp_path):
    t = access.Tickets(tmp_path / "t.json", ttl=100)
    ticket = t.issue("alice", now=0)
    who, fresh = t.redeem(ticket, now=10)
    assert who == "alice" and fresh != ticket
    assert t.redeem(ticket, now=11) is None  # used: a URL from history no longer works
    assert t.redeem(fresh, now=200) is None  # expired
    assert ticket not in (tmp_path / "t.json").read_text()  # only hashes on disk


def test_token_sign_in_survives_refresh_without_token_in_url(tmp_path):
    cfg = secure_project(tmp_path)
    at = make_app(cfg, annotator="mallory")  # ?annotator= is ignored once tokens exist
    at.run()
    assert not at.exception
    assert at.text_input[0].label == "Your access token"
    at.text_input[0].input("nope")
    at.button[0].click().run()
    assert "not valid" in at.error[0].value
    at.text_input[0].input(TOKENS["alice"])
    at.button[0].click().run()
    ticket = at.query_params["session"]
    ticket = ticket[0] if isinstance(ticket, list) else ticket
    assert TOKENS["alice"] not in str(dict(at.query_params))
    # a refresh: a new session with the URL's ticket is signed in as alice
    at2 = make_app(cfg, annotator=None)
    at2.query_params["session"] = ticket
    at2 = open_page(at2, "radio")
    at2.radio[0].set_value("failure").run()
    assert AnnotationStore(tmp_path / "annotations").load("trip-planner-001", "alice", "outcome") is not None
    # the same ticket a second time (a copied URL) signs nobody in
    at3 = make_app(cfg, annotator=None)
    at3.query_params["session"] = ticket
    at3.run()
    assert at3.text_input[0].label == "Your access token"


def test_summary_is_for_admins_only(tmp_path):
    cfg = secure_project(tmp_path)
    at = make_app(cfg, annotator=None)
    at.run()
    at.text_input[0].input(TOKENS["alice"])
    at.button[0].click().run()
    at.switch_page("pages/summary.py")
    at.run()
    assert not at.exception
    assert "admins only" in at.info[0].value
    at = make_app(cfg, annotator=None)
    at.run()
    at.text_input[0].input(TOKENS["root"])
    at.button[0].click().run()
    at.switch_page("pages/summary.py")
    at.run()
    assert not at.exception
    assert not [i for i in at.info if "admins only" in i.value]
