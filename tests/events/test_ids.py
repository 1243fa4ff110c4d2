"""Random bits for ids: a forked child must not repeat its parent's draws."""

from __future__ import annotations

import os

from events.ids import random_bits


def test_a_forked_child_draws_other_bits_than_its_parent() -> None:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report its first draw and leave without cleanup
        os.write(write_end, str(random_bits(128)).encode())
        os._exit(0)
    os.close(write_end)
    parent = random_bits(128)  # same generator state as the child had at the fork
    os.waitpid(pid, 0)
    child = int(os.read(read_end, 100))
    os.close(read_end)
    assert child != parent
