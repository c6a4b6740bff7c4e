"""A refused document gives its memory back.

A zip bomb is known to be one only once it has been inflated up to its ratio cap (tens of MB).
That memory is freed, but the allocator keeps freed memory per thread for reuse: a server whose
worker threads each met one bomb would hold tens of MB per thread for good. Refusals give it back.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

import rhwp_core

BOMB = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "bad" / "synthetic-a-zip-bomb.hwpx"


def rss_mb() -> float:
    status = Path("/proc/self/status").read_text()
    match = re.search(r"VmRSS:\s+(\d+)", status)
    assert match
    return int(match.group(1)) / 1024


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmRSS from /proc")
def test_a_refused_zip_bomb_leaves_no_memory_behind_in_any_thread() -> None:
    def refuse() -> None:
        with pytest.raises(rhwp_core.TooLargeError, match="zip bomb"):
            rhwp_core.parse(BOMB)

    refuse()  # the first refusal loads what any parse loads
    before = rss_mb()
    for _ in range(3):
        refuse()
    for _ in range(4):  # each new thread would otherwise keep its own copy
        worker = threading.Thread(target=refuse)
        worker.start()
        worker.join()
    # The bomb inflates to 61 MB before it is refused; seven refusals holding even one copy
    # between them would show here.
    assert rss_mb() - before < 20
