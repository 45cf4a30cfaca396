"""Access control: hashed tokens, constant-time checks, rotating one-time session tickets."""
from app.project import access
from app.store.storage import AnnotationStore
from tests.conftest import click_card, components, instant_card, make_app, open_page, write_project

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
    click_card(at2, "outcome", ["failure"])
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


# --- review of the access layer: timing, replay, concurrency, roles ---------------------------------

ROLES_TOKENS = {"alice": "alice-token-0123456789abcdef", "bob": "bob-token-0123456789abcdef",
                "root": "root-token-0123456789abcdef"}


def roles_project(tmp_path):
    cfg = write_project(tmp_path)
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "secrets.toml").write_text("".join(
        f'[baton.annotators.{name}]\ntoken_sha256 = "{access.hash_token(tok)}"\n'
        f'role = "{"admin" if name == "root" else "annotator"}"\n' for name, tok in ROLES_TOKENS.items()))
    return cfg


def signed_in(cfg, name, page=None, item=None):
    """A fresh session (a new tab) signed in with the token, on `page`."""
    at = make_app(cfg, annotator=None, item=item)
    at.run()
    at.text_input[0].input(ROLES_TOKENS[name])
    at.button[0].click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    if page:
        at.switch_page(f"pages/{page}.py")
        at.run()
        assert not at.exception, [e.value for e in at.exception]
    return at


def test_authenticate_compares_every_account_in_constant_time(monkeypatch, tmp_path):
    """The token's hash is compared with every account's, each with hmac.compare_digest on
    equal-length digests, whether the token is right, wrong, empty or huge: how long a
    sign-in takes says nothing about which account (or how much of a hash) matched."""
    import hmac
    roles_project(tmp_path)
    accounts, _ = access.load_accounts([tmp_path / ".streamlit" / "secrets.toml"])
    calls = []
    real = hmac.compare_digest

    def spy(a, b):
        calls.append((len(a), len(b)))
        return real(a, b)

    monkeypatch.setattr(access.hmac, "compare_digest", spy)
    for token, who in [(ROLES_TOKENS["alice"], "alice"), (ROLES_TOKENS["root"], "root"), ("wrong", None),
                       ("", None), ("x" * 100_000, None), (ROLES_TOKENS["bob"][:-1], None), ("\ud800", None)]:
        calls.clear()
        got = access.authenticate(accounts, token)
        assert (got.name if got else None) == who
        assert calls == [(64, 64)] * len(accounts)


def test_tickets_replayed_revoked_tampered(tmp_path):
    t = access.Tickets(tmp_path / "t.json")
    a1, b1 = t.issue("alice"), t.issue("bob")
    who, a2 = t.redeem(a1)
    assert who == "alice" and t.redeem(a1) is None  # a copied URL works once, then never
    t.revoke_all("alice")  # sign-out: every tab of alice needs the token again
    assert t.redeem(a2) is None and t.redeem(b1)[0] == "bob"  # bob untouched
    for junk in ("", None, "x" * 10_000, "\x00", a1 + "x"):
        assert t.redeem(junk) is None
    for damaged in ("[1, 2]", '{"k": 5}', '{"k": {"annotator": 1, "expires": "soon"}}', "{", "[" * 100_000):
        (tmp_path / "t.json").write_text(damaged)  # a damaged file signs everyone out, nothing worse
        assert t.redeem("k") is None
        assert t.redeem(t.issue("carol"))[0] == "carol"


def _issue_and_redeem(path, who, n, out):
    try:
        for _ in range(n):
            out.append((who, access.Tickets(path).issue(who)))  # a new instance per call, as the app does
    except Exception as e:  # noqa: BLE001 - reported by the test
        out.append((who, repr(e)))


def test_concurrent_sign_ins_lose_no_ticket(tmp_path):
    """Eight sessions signing in at once (Streamlit runs each in a thread of its own), and a
    second server process doing the same: every ticket issued is redeemable afterwards.
    Before the fix a per-instance lock and one temp-file name per process made concurrent
    sign-ins fail with FileNotFoundError and silently drop tickets (sign-outs on refresh)."""
    import subprocess
    import sys
    import threading

    from tests.conftest import ROOT
    path = tmp_path / ".baton-sessions.json"
    out: list = []
    other = subprocess.Popen(
        [sys.executable, "-c", "import sys\nfrom app.project import access\nfor _ in range(40):\n"
         "    print(access.Tickets(sys.argv[1]).issue('proc'))", str(path)], cwd=ROOT, stdout=subprocess.PIPE,
        text=True)
    threads = [threading.Thread(target=_issue_and_redeem, args=(path, f"user{i}", 25, out)) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    proc_tickets = other.communicate(timeout=60)[0].split()
    assert other.returncode == 0 and len(proc_tickets) == 40
    assert len(out) == 200 and not [x for x in out if x[1].startswith(("FileNotFound", "Error", "OSError"))]
    t = access.Tickets(path)
    assert all(t.redeem(ticket)[0] == who for who, ticket in out)
    assert all(t.redeem(ticket)[0] == "proc" for ticket in proc_tickets)
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_annotators_see_and_change_only_their_own(tmp_path):
    cfg = roles_project(tmp_path)
    store = AnnotationStore(tmp_path / "annotations")
    bob = signed_in(cfg, "bob", "radio")
    click_card(bob, "outcome", ["success"])
    assert store.load("trip-planner-001", "bob", "outcome").value == {"success": "true"}
    # alice, in her own session, sees no answer on that item, not bob's
    alice = signed_in(cfg, "alice", "radio")
    assert instant_card(alice, "outcome")["stored"] == []
    assert not [c for c in alice.caption if "Saved" in c.value]
    click_card(alice, "outcome", ["failure"])
    assert store.load("trip-planner-001", "alice", "outcome").value == {"failure": "true"}
    assert store.load("trip-planner-001", "bob", "outcome").value == {"success": "true"}  # untouched
    # a URL naming another annotator changes nothing once tokens exist
    alice2 = signed_in(cfg, "alice", "radio")
    alice2.query_params["annotator"] = "bob"
    alice2.run()
    assert instant_card(alice2, "outcome")["stored"] == ["failure"]
    # no summary for annotators by its address (the menu leaves it out too)
    summary = signed_in(cfg, "alice", "summary")
    assert any("admins only" in i.value for i in summary.info)
    assert not summary.dataframe and not components(summary, "baton_figure")
    # the admin sees everyone's work in the summary
    admin = signed_in(cfg, "root", "summary")
    assert not [i for i in admin.info if "admins only" in i.value]
    assert any("2 annotators" in c.value for c in admin.caption), [c.value for c in admin.caption][:5]


def test_token_command_prints_toml_that_signs_in(tmp_path, capsys):
    """`python -m app token NAME` for names TOML cannot take bare (non-ASCII, dots, quotes)."""
    import re

    from app.__main__ import main
    for name in ["élise", "Bob Smith", 'a"b', "a\\b", "a.b", "o'neil"]:
        main(["token", name])
        out = capsys.readouterr().out
        token = out.split("\n\n")[1].strip()
        secrets = tmp_path / f"{abs(hash(name))}.toml"
        secrets.write_text(out[re.search(r"^\[baton", out, re.M).start():])
        accounts, problems = access.load_accounts([secrets])
        assert problems == [] and list(accounts) == [name], (name, problems)
        assert access.authenticate(accounts, token).name == name


def test_an_account_added_while_the_app_runs_can_sign_in(tmp_path):
    """The accounts cache is keyed by the secrets files' times: an added account works without a
    restart (the stamp was once a parameter Streamlit left out of the cache key)."""
    import os
    cfg = roles_project(tmp_path)
    secrets = tmp_path / ".streamlit" / "secrets.toml"
    signed_in(cfg, "alice")
    newcomer = "carol-token-0123456789abcdef"
    st_ = secrets.stat()
    secrets.write_text(secrets.read_text() + f'[baton.annotators.carol]\ntoken_sha256 = "{access.hash_token(newcomer)}"\n')
    os.utime(secrets, ns=(st_.st_atime_ns, st_.st_mtime_ns + 1_000_000))  # a later time, whatever the clock's grain
    at = make_app(cfg, annotator=None)
    at.run()
    at.text_input[0].input(newcomer)
    at.button[0].click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    from app.ui import state
    assert at.session_state[state.ANNOTATOR] == "carol"
