"""The terminal table's log pane (belote.play.log_pane) in a Textual app of its own: lines
wrapped anew when the terminal is resized (none cut), and the newest line kept in view across
resizes, unless the player scrolled up to read."""

from __future__ import annotations

from belote.play.log_pane import LogPane
from rich.text import Text
from textual.app import App, ComposeResult

LINES = [f"{i}: A normal bot sat down North" if i % 3 else f"{i}: Everyone passed: the cards "
         "are dealt again" for i in range(40)]


class LogApp(App):
    CSS = "LogPane { width: 40%; height: 100%; border: round white; padding: 0 1; }"

    def compose(self) -> ComposeResult:
        yield LogPane(id="log")


def words(rows: list[str]) -> list[str]:
    return " ".join(rows).split()


def ends_with(rows: list[str], line: str) -> bool:
    """The rows on screen end with ``line``, wrapped."""
    return words(rows)[-len(line.split()):] == line.split()


async def test_lines_are_wrapped_anew_after_a_resize_and_the_newest_stays_in_view():
    app = LogApp()
    async with app.run_test(size=(120, 40)) as pilot:
        log = app.query_one(LogPane)
        for line in LINES[:30]:
            log.write(Text(line))
        await pilot.pause()
        wide = log.scrollable_content_region.width
        assert all(len(row) <= wide for row in log.visible_text())
        await pilot.resize_terminal(80, 30)
        await pilot.pause()
        width, height = log.scrollable_content_region.width, log.scrollable_content_region.height
        assert width < wide and width < len(LINES[1])  # "…sat down North" has to wrap now
        shown = log.visible_text()
        assert len(shown) == height and all(len(row) <= width for row in shown)
        # Nothing cut: the rows on screen are the end of the log, word for word.
        assert words(shown) == words(LINES[:30])[-len(words(shown)):]
        assert ends_with(shown, LINES[29]) and shown[-1] == "North"
        # New lines after the resize come into view.
        for line in LINES[30:35]:
            log.write(Text(line))
        await pilot.pause()
        assert ends_with(log.visible_text(), LINES[34])
        # Scrolled up to read: the pane stays there while lines come, until back at the end.
        log.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        assert not log.following
        log.write(Text(LINES[35]))
        await pilot.pause()
        assert log.visible_text()[0] == "0: Everyone passed: the"  # still the top
        log.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert log.following
        log.write(Text(LINES[36]))
        await pilot.pause()
        assert ends_with(log.visible_text(), LINES[36])
        # Wider again: fewer rows, the end still in view.
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert ends_with(log.visible_text(), LINES[36])
        assert words(log.visible_text()) == words(LINES[:37])[-len(words(log.visible_text())):]


async def test_the_oldest_lines_go_first_past_the_limit():
    from belote.play.log_pane import MAX_LINES, TRIM

    app = LogApp()
    async with app.run_test(size=(120, 40)) as pilot:
        log = app.query_one(LogPane)
        for i in range(MAX_LINES + TRIM + 1):
            log.write(Text(f"line {i}"))
        await pilot.pause()
        assert len(log.lines) == MAX_LINES and log.lines[0].plain == f"line {TRIM + 1}"
        assert log.visible_text()[-1] == f"line {MAX_LINES + TRIM}"
