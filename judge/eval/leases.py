"""Leases on the cases of an eval run: which process is judging which case, so that processes sharing one store
(two `judge eval --resume R` at once, or worker processes) never judge a case twice.

Taking a lease is one BEGIN IMMEDIATE transaction: if the case is stored with these inputs, the stored record
is the answer; if another live process holds its lease, that process is; otherwise a row in the store's ``claims``
table (its name kept for stores already written) makes it this process's. Saving the record and giving the lease
back is one transaction too, so a case is always either stored, leased, or free — never judged by two live
processes.

A lease lives as long as its owner does. A heartbeat thread renews all the owner's leases every ``renew`` seconds;
another process takes a lease over when
- its owner ran in this pid space and its pid is gone (`kill -9`, a crash): at once, so a `--resume` right
  after a kill judges exactly what was in flight, without waiting. "This pid space" is the hostname, the
  boot id and the pid namespace together (the ``host`` column holds all three): containers of one
  Kubernetes pod share a hostname and a volume but not their pids, so a hostname alone would let one
  take the live leases of another;
- or it has expired (``lease`` seconds without a renewal): an owner on another host or in another
  pid namespace that died, or a pid reused by an unrelated program.
An owner stopped (SIGSTOP) for longer than the lease can have a case judged a second time by the process
that took it over; a case is never lost. SQLite's WAL needs one machine's shared memory, so every process
sharing a store runs on one kernel, and their clocks agree.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from judge.errors import InputError
from judge.eval.report.model import CaseRecord
from judge.eval.store import RunStore

__all__ = ["LEASE_SECONDS", "RENEW_SECONDS", "CaseLeases", "Owner"]

LEASE_SECONDS = 60.0
RENEW_SECONDS = 10.0
# Giving leases back is a courtesy (they also die with their lease or pid), never worth a long wait on a lock.
_RELEASE_WAIT_SECONDS = 2.0

def _pid_space() -> str:
    """This process's pid space as ``hostname|boot id|pid namespace``; a part that cannot be read is ``?``."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip()
    except (OSError, ValueError):
        boot = "?"
    try:
        namespace = str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:
        namespace = "?"
    return f"{socket.gethostname()}|{boot or '?'}|{namespace}"


_HOST = _pid_space()
# Where Linux has pid namespaces but /proc does not show them, two processes agreeing on "?" prove nothing.
_PIDS_COMPARABLE = not sys.platform.startswith("linux") or "|?" not in _HOST
_LIVE_TOKENS: set[str] = set()  # the owners open in this process: a lease with this pid and another token is dead


@dataclass(frozen=True)
class Owner:
    """Who holds a lease: a process (pid in a pid space, see _pid_space) and a token for the one CaseLeases
    inside it."""

    pid: int
    host: str
    token: str

    @property
    def id(self) -> str:
        return f"{self.pid}@{self.host}#{self.token}"

    def __str__(self) -> str:
        return f"pid {self.pid} on {self.host.partition('|')[0]}"

    def gone(self) -> bool:
        """Certainly not running: in this pid space, and its pid is free (or is this process, where it is closed).
        An owner elsewhere (another host, boot or pid namespace, or an older judge's hostname-only row) may be
        alive whatever its pid is here: only its lease tells."""
        if self.host != _HOST or not _PIDS_COMPARABLE:
            return False
        if self.pid == os.getpid():
            return self.token not in _LIVE_TOKENS
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return True
        except OSError:  # PermissionError: alive, as another user
            return False
        return False


class CaseLeases:
    """This process's leases on the cases of one run of ``store``; close() gives back what it still holds."""

    def __init__(self, store: RunStore, run_id: str, *, lease: float = LEASE_SECONDS,
                 renew: float = RENEW_SECONDS) -> None:
        self.store = store
        self.run_id = run_id
        self.lease = lease
        self.owner = Owner(os.getpid(), _HOST, uuid.uuid4().hex[:12])
        _LIVE_TOKENS.add(self.owner.token)
        self._stop = threading.Event()
        self._beat = threading.Thread(target=self._renew_every, args=(renew,), daemon=True,
                                      name=f"judge-leases-{self.owner.token}")
        self._beat.start()

    def take(self, case_id: str, inputs_hash: str) -> CaseRecord | Owner | None:
        """None: the case is now this process's to judge. A CaseRecord: it is stored with these inputs (another
        process judged it). An Owner: that live process is judging it; ask again later. InputError when another
        program holds the store's write lock too long (nothing changed)."""
        with self.store.transaction() as db:
            stored = self.store.record(self.run_id, case_id)
            if stored is not None and stored.inputs_hash == inputs_hash:
                return stored
            row = db.execute("SELECT pid, host, owner, expires FROM claims WHERE run_id = ? AND case_id = ?",
                             (self.run_id, case_id)).fetchone()
            now = time.time()
            if row is not None:
                holder = Owner(row[0], row[1], row[2].rpartition("#")[2])
                if holder != self.owner and row[3] > now and not holder.gone():
                    return holder
            db.execute("INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (self.run_id, case_id, inputs_hash, self.owner.id, self.owner.pid, self.owner.host, now,
                        now + self.lease))
        return None

    def finish(self, record: CaseRecord) -> None:
        """Store the record of a case this process judged and give its lease back, as one. InputError when
        another program holds the store's write lock too long: the case stays leased, then free again."""
        with self.store.transaction() as db:
            self.store.save(self.run_id, record)
            db.execute("DELETE FROM claims WHERE run_id = ? AND case_id = ? AND owner = ?",
                       (self.run_id, record.case_id, self.owner.id))

    def close(self) -> None:
        """Stop renewing and give back every lease still held (cases not finished are free again)."""
        self._stop.set()
        self._beat.join()
        _LIVE_TOKENS.discard(self.owner.token)
        try:
            with self.store.transaction(wait=_RELEASE_WAIT_SECONDS) as db:
                db.execute("DELETE FROM claims WHERE owner = ?", (self.owner.id,))
        except (sqlite3.Error, InputError):  # the leases expire, or die with this process's pid
            pass

    def _renew_every(self, seconds: float) -> None:
        # Its own connection: one shared with the event loop's thread would join its open transactions.
        db = sqlite3.connect(str(self.store.path), timeout=seconds, isolation_level=None)
        try:
            while not self._stop.wait(seconds):
                try:
                    db.execute("UPDATE claims SET expires = ? WHERE owner = ?", (time.time() + self.lease,
                                                                                 self.owner.id))
                except sqlite3.Error:  # busy: the lease outlasts several missed renewals
                    pass
        finally:
            db.close()
