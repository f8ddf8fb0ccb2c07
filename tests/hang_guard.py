"""How long a test waits on a child process before calling it hung.

A guard against a hang, not a measure of speed: a loaded 2-core machine can
take minutes to start a child that imports the model runtime, so the bound is
wide enough that only a real hang reaches it.
"""

HANG_GUARD_SECONDS = 600
