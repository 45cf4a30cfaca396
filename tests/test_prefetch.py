"""shell.prefetch: the item "Done → next" opens is derived before it is opened (in a served app,
in a background thread; here synchronously), once per item and set of keys."""
from app.ui import shell, trace_view
from app.project.workspace import open_project


def test_prefetch_warms_the_derivation_once(demo_project):
    ws = open_project(str(demo_project))
    item = ws.by_id["code-team-002"]
    scheme = next(s for s in ws.project.schemes if s.type == "tool_contention")
    seen = []
    extra = lambda it, d, s: seen.append((it.id, d))  # noqa: E731
    shell._PREFETCHED.clear()
    shell.prefetch(item, [scheme], extra=extra, background=False)
    assert [x[0] for x in seen] == ["code-team-002"]
    # what the page asks for next is the object derived then, from the cache
    assert shell.derivation(item, scheme) is seen[0][1]
    shell.prefetch(item, [scheme], extra=extra, background=False)
    assert len(seen) == 1  # once per item, keys and extra


def test_prefetch_builds_the_trace_views_conversation(demo_project, monkeypatch):
    from app.traces import conversation
    builds = []
    real = conversation.build
    monkeypatch.setattr(conversation, "build", lambda steps: builds.append(1) or real(steps))
    ws = open_project(str(demo_project))
    item = ws.items[0]
    shell._PREFETCHED.clear()
    shell.prefetch(item, [shell.trace_scheme(ws)], extra=trace_view.warm, background=False)
    assert builds == [1]
    d = shell.derivation(item, shell.trace_scheme(ws))
    trace_view._conversation(item.id, item.trace_hash, id(d), d.steps)  # what the trace view asks
    assert builds == [1]  # already built


def test_no_thread_without_a_served_app(demo_project):
    """AppTest and the command line have no runtime: nothing is started, nothing is marked."""
    ws = open_project(str(demo_project))
    item = ws.items[1]
    shell._PREFETCHED.clear()
    seen = []
    shell.prefetch(item, [shell.trace_scheme(ws)], extra=lambda it, d, s: seen.append(it.id))
    assert seen == [] and not shell._PREFETCHED


def test_the_collector_runs_again_after_threads_pause_it_together(monkeypatch):
    # a prefetch thread and a session deriving at once: thread b looks at the collector while
    # thread a has it paused, a resumes it, then b pauses it; it must not stay paused for good
    import gc
    import threading

    from app.traces import derive
    a_inside, b_looked, a_left = threading.Event(), threading.Event(), threading.Event()
    real = gc.isenabled

    def isenabled():
        found = real()
        if threading.current_thread().name == "b":
            b_looked.set()
            a_left.wait(1)
        return found
    monkeypatch.setattr(gc, "isenabled", isenabled)

    def a():
        with derive.no_gc():
            a_inside.set()
            b_looked.wait(1)
        a_left.set()

    def b():
        a_inside.wait(1)
        with derive.no_gc():
            pass
    assert real()
    threads = [threading.Thread(target=a, name="a"), threading.Thread(target=b, name="b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    running = real()
    gc.enable()  # for the tests after this one, whatever happened
    assert running
