"""Dispute review: replay, verify and export any table's log, offline, from the log alone.

``belote export TABLE_ID`` prints a table's log as JSON lines (one ``belote.v1.LoggedEvent``
each, as the ExportLog RPC returns them); ``belote replay`` re-runs it with the rules engine and
reports every check with its sequence number (see :mod:`belote.review.verify`)::

    from belote.review import entries_of, read_file, report, review
    result = review(entries_of(read_file("table.jsonl")))
    print(report.as_text(result))      # or as_json / as_html
    result.exit_code                   # 0 clean, 1 a violation found (3: see below)

An export's head must be signed by a key the reviewer trusts (``export_of(lines, key)``, or the
keys pinned with ``belote trust-key``, :mod:`belote.review.known_keys`): a good head by any other
key leaves ``Review.unknown_key`` set and the exit code 3.
"""

from . import report
from .load import Unreadable, parse_lines, read_file, read_store, to_json_line
from .verify import Entry, Review, Violation, entries_of, review

__all__ = ["Entry", "Review", "Unreadable", "Violation", "entries_of", "parse_lines", "read_file",
           "read_store", "report", "review", "to_json_line"]
