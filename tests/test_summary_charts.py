"""app.summary_charts: what a chart shows when there is nothing to show."""
import pytest

from app.summary import charts


@pytest.mark.parametrize("fig", [
    charts.bar([], "annotator", "items", "Items done per annotator"),
    charts.heatmap([], "annotator", "scheme", "items", "Items per annotator and scheme"),
    charts.gold_accuracy({}),
], ids=["bar", "heatmap", "gold"])
def test_an_empty_chart_says_so_and_draws_no_axes(fig):
    layout = fig.to_dict()["layout"]
    assert [a["text"] for a in layout["annotations"]] == ["nothing to show yet"]
    assert layout["xaxis"]["visible"] is False and layout["yaxis"]["visible"] is False
    assert layout["height"] < charts.LAYOUT["height"] and not fig.data
