"""``once``: a process-wide object created at its first use."""

import functools
import threading


def once(create):
    """Decorates a function without arguments so that it runs ``create`` at
    the first call, under a lock, and returns that result from then on. A
    call that raises leaves nothing behind: the next call tries again."""
    lock = threading.Lock()
    made = []

    @functools.wraps(create)
    def get():
        with lock:
            if not made:
                made.append(create())
            return made[0]
    return get
