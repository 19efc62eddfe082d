"""The table's log pane: every line wrapped to the pane's width, wrapped again on each resize.

Textual's RichLog wraps a line once, at the width the pane had when it was written: a terminal
made narrower then cuts it ("A normal bot sat down Nort"). This pane keeps the lines and wraps
them anew whenever its width changes, and keeps following the newest line across resizes
(unless the player scrolled up to read: then it stays until they scroll back to the end).
"""

from __future__ import annotations

from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

#: Lines kept (a game is a few hundred): the oldest go first, TRIM at a time (each trim wraps
#: what is left anew).
MAX_LINES = 2000
TRIM = 200


class LogPane(ScrollView, can_focus=False):
    DEFAULT_CSS = """
    LogPane { overflow-x: hidden; overflow-y: auto; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines: list[Text] = []
        self._strips: list[Strip] = []
        self._width = 0
        #: Whether the newest line is kept in view (False once the player scrolls up).
        self.following = True

    def write(self, line: Text) -> None:
        self.lines.append(line)
        if len(self.lines) > MAX_LINES + TRIM:
            del self.lines[: len(self.lines) - MAX_LINES]
            self._rewrap()
        elif self._width:
            self._strips.extend(self._wrap(line))
            self._resized()

    def on_resize(self) -> None:
        if self.scrollable_content_region.width != self._width:
            self._rewrap()

    def _rewrap(self) -> None:
        self._width = self.scrollable_content_region.width
        self._strips = [s for line in self.lines for s in self._wrap(line)] if self._width else []
        self._resized()

    def _wrap(self, line: Text) -> list[Strip]:
        console = self.app.console
        options = console.options.update_width(self._width)
        return [Strip(segments) for segments in console.render_lines(line, options, pad=False)]

    def _resized(self) -> None:
        self.virtual_size = Size(self._width, len(self._strips))
        if self.following:
            # force: before the next layout shows the scroll bar, a scroll is not yet "allowed".
            self.scroll_to(y=max(0, len(self._strips) - self.scrollable_content_region.height),
                           animate=False, force=True, immediate=True)
        self.refresh()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        # Moved by the player (the wheel, the scroll bar): follow again only from the end.
        self.following = round(new_value) >= len(self._strips) - self.scrollable_content_region.height

    def render_line(self, y: int) -> Strip:
        index = round(self.scroll_y) + y
        width = self.scrollable_content_region.width
        if 0 <= index < len(self._strips):
            return self._strips[index].crop_extend(0, width, self.rich_style)
        return Strip.blank(width, self.rich_style)

    def visible_text(self) -> list[str]:
        """The lines on screen now, as the terminal shows them (for checks)."""
        height = self.scrollable_content_region.height
        return [self.render_line(y).text.rstrip() for y in range(height)]
