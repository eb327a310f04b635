"""Hostile journals, as a user meets them: real ``python -m mancala solve``
processes given a journal that was damaged, edited, forged, or is no journal
(a user's file, a FIFO, a device, a folder). Never a wrong value with exit 0,
never a user's file written, never a hang; a forgery with its checks
recomputed (intent, not accident) is caught by ``solve --verify-journal``.
The honest journal: a real ``--cluster local:2`` solve of Kalah(6,3), +2.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mancala import Board

NEEDS_RAY = "the cluster tests need the extra: pip install -e '.[cluster]'"
TRUE_VALUE = 2                      # Kalah(6,3), standard capture


def run(args, env, timeout=120):
    return subprocess.run([sys.executable, "-m", "mancala", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


@pytest.fixture(scope="module")
def env():
    """Ray kept to this module (its files in a short folder of ours, no token,
    no cluster found by accident) and a cache of its own (no database)."""
    folder = tempfile.mkdtemp(prefix="kj", dir="/tmp")
    environ = dict(os.environ, RAY_AUTH_MODE="disabled", TMPDIR=folder, RAY_TMPDIR=folder,
                   MANCALA_CACHE=os.path.join(folder, "cache"))
    environ.pop("RAY_ADDRESS", None)
    yield environ
    leftover = [name for name in os.listdir(folder) if name != "cache"]
    shutil.rmtree(folder, ignore_errors=True)
    assert leftover == [], leftover                         # no runtime left behind


@pytest.fixture(scope="module")
def real(env, tmp_path_factory):
    """A real journal: Kalah(6,3) on a local two-CPU runtime, jobs of 1,000 nodes
    (some run out and are asked again), ending with its claim."""
    pytest.importorskip("ray", reason=NEEDS_RAY)
    path = tmp_path_factory.mktemp("journal") / "real.jsonl"
    done = run(["solve", "--seeds", "3", "--cluster", "local:2", "--endgame", "0", "--threads", "1",
                "--job-nodes", "1000", "--hash-mb", "16", "--journal", str(path), "--json"], env, 300)
    assert done.returncode == 0 and json.loads(done.stdout)["value"] == TRUE_VALUE, done.stderr
    return path.read_bytes()


def records(data):
    lines = data.decode().splitlines()
    return json.loads(lines[0]), [json.loads(line) for line in lines[1:]]


def jobs_of(data):
    return [r for r in records(data)[1] if "claim" not in r]


def statements_of(data):
    """The statements a journal's jobs make, worked out here from the lines: each
    job's bound, the move that reached a bound at least beta (when it does not end
    the game), and every bound in its facts (docs/cluster.md)."""
    said = []
    for job in jobs_of(data):
        if job["bound"] is not None:
            said.append(job)
        if job.get("move") is not None:
            pits, side = job["key"]
            board = Board(pits[:6] + [0] + pits[6:] + [0], side)
            board.push(job["move"])
            if not board.is_game_over():
                said.append({"nodes": 0})
        stack = list(job.get("facts") or [])
        while stack:
            move, bound, below = stack.pop()
            if bound is not None:
                said.append({"nodes": 0})
            stack += below
    return said


def canonical(record):
    return json.dumps(record, sort_keys=True, separators=(",", ":")).encode()


def seal(record, previous):
    """record with its check as docs/cluster.md describes it, worked out here."""
    body = {k: v for k, v in record.items() if k != "check"}
    digest = hashlib.blake2b(previous.encode() + b"\n" + canonical(body), digest_size=16,
                             person=b"mancala journal")
    return {**body, "check": digest.hexdigest()}


def header(board, id):
    return seal({"kind": "mancala cluster solve journal", "format": 2, "pits": list(board.pits),
                 "to_move": board.to_move, "capture": board.capture, "id": id}, "")


def written(head, body, reseal):
    """A journal's bytes: each record as is (its old check kept: an edit in
    place), or sealed again, as a forger who knows the format would: all the
    forger can compute is format 2's unkeyed checks (this installation's seal
    needs its key), so a journal resealed so is format 2, foreign here."""
    if reseal:
        head = header(Board(head["pits"], head["to_move"], capture=head["capture"]), head["id"])
    lines, last = [canonical(head)], head.get("check", "")
    for record in body:
        if reseal:
            record = seal(record, last)
            last = record["check"]
        lines.append(canonical(record))
    return b"".join(line + b"\n" for line in lines)


def format_1(data):
    """The same jobs as a journal of format 1 (no checks), as the issue's attacks had them."""
    head, body = records(data)
    head = {k: head[k] for k in ("kind", "pits", "to_move", "capture")} | {"format": 1}
    return b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in
                    [head] + [{k: v for k, v in r.items() if k != "check"} for r in body
                              if "claim" not in r])


def middle_job(body):
    """The index in body of a job with a result, in the middle of the journal,
    whose opposite stays within its position's range."""
    found = [i for i, r in enumerate(body) if "claim" not in r and r["bound"] is not None
             and abs(r["bound"]) + 2 <= sum(r["key"][0])]
    return found[len(found) // 2]


def opposite(job):
    """A job record saying the opposite of job's (true) statement, so false:
    at least b becomes at most b - 2, at most b becomes at least b + 2."""
    bound = job["bound"]
    job = {**job, "move": None, "facts": []}        # what the line says beside: none
    if bound >= job["beta"]:
        return {**job, "beta": bound - 1, "bound": bound - 2}
    return {**job, "beta": bound + 1, "bound": bound + 2}


FORGED = {"key": [[3] * 12, 0], "beta": 2, "bound": 0, "nodes": 1, "seconds": 0, "test": 1,
          "depth": 0, "after": None}                     # "South draws by 0": the issue's line


def attack(data, how):
    """The issue's attacks on a journal's records (head, body) -> (head, body)."""
    head, body = records(data)
    if how == "forged line":
        return head, [FORGED]
    if how == "one bound flipped":
        k = middle_job(body)
        body[k] = opposite(body[k])
    else:
        change = (lambda b: b + 4) if how == "every bound +4" else (lambda b: True)
        body = [r if "claim" in r or r["bound"] is None else {**r, "bound": change(r["bound"])}
                for r in body]
    return head, body


ATTACKS = ["forged line", "one bound flipped", "every bound +4", "bound true"]
SOLVE = ["solve", "--seeds", "3", "--cluster", "local:2", "--endgame", "0", "--hash-mb", "16",
         "--threads", "1"]


def never_wrong(done):
    """The outcome of a solve given a hostile journal: refused in one line (exit 2),
    or the true value. Never a wrong value with exit 0, never a traceback."""
    assert "Traceback" not in done.stderr, done.stderr
    if done.returncode == 0:
        assert f"wins by {TRUE_VALUE} (+{TRUE_VALUE}" in done.stdout, done.stdout
        return None
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines[-1].startswith("mancala: "), done.stderr
    return lines[-1]


@pytest.mark.parametrize("how", ATTACKS)
def test_the_issues_attacks_on_an_old_journal_are_refused(tmp_path, env, real, how):
    """The issue's journals had format 1 (no checks): each gave a wrong value or
    0 with exit 0 (the forged line "South draws by 0"). Now refused, untouched."""
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(format_1(written(*attack(real, how), reseal=True)))
    before = journal.read_bytes()
    said = never_wrong(run(SOLVE + ["--journal", str(journal)], env))
    assert said is not None and "has format 1, whose lines carry no checksums" in said
    assert "--verify-journal" in said and journal.read_bytes() == before


@pytest.mark.parametrize("how", ATTACKS)
def test_a_journal_edited_in_place_is_refused_naming_the_line(tmp_path, env, real, how):
    """A line changed on the disk (a flipped digit, an edit, a line from
    elsewhere) no longer matches its check: the line is named, the file kept."""
    head, body = attack(real, how)
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(written(head, body, reseal=False))
    before = journal.read_bytes()
    said = never_wrong(run(SOLVE + ["--journal", str(journal)], env))
    first = 2 + next(i for i, (a, b) in enumerate(zip(body, records(real)[1]))
                     if json.dumps(a) != json.dumps(b)) if how != "forged line" else 2
    assert said == (f"mancala: the journal {str(journal)!r} line {first} is damaged (its checksum does "
                    f"not match: changed, moved, or from another journal); the file is left as it is"), said
    assert journal.read_bytes() == before


def test_a_flipped_digit_anywhere_is_refused(tmp_path, env, real):
    """Disk corruption of one character of any line: refused, never used."""
    journal = tmp_path / "j.jsonl"
    lines = real.splitlines(True)
    for number in (1, 2, len(lines) // 2, len(lines)):
        line = bytearray(lines[number - 1])
        digit = next(i for i in range(len(line) - 1, -1, -1) if chr(line[i]).isdigit())
        line[digit] = ord("7") if line[digit] != ord("7") else ord("3")
        journal.write_bytes(b"".join(lines[:number - 1]) + bytes(line) + b"".join(lines[number:]))
        before = journal.read_bytes()
        said = never_wrong(run(SOLVE + ["--journal", str(journal)], env))
        assert said is not None and f"line {number} is damaged" in said, said
        assert journal.read_bytes() == before


def test_a_line_from_another_journal_of_the_same_solve_is_refused(tmp_path, env, real):
    """Two journals of one position: a line copied across is refused (each
    journal's chain starts from its own header, with its own id)."""
    head, body = records(real)
    other = written(header(Board(seeds=3), "another solve's"), body, reseal=True)
    mixed = real.splitlines(True)
    mixed[5] = other.splitlines(True)[5]
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(b"".join(mixed))
    said = never_wrong(run(SOLVE + ["--journal", str(journal)], env))
    assert said is not None and "line 6 is damaged" in said, said


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(how=st.sampled_from(["flip", "delete", "insert", "cut"]), where=st.floats(0, 1),
       length=st.integers(1, 40), noise=st.binary(min_size=1, max_size=40))
def test_random_damage_is_refused_or_drops_only_a_torn_tail(tmp_path, real, how, where, length, noise):
    """Bytes flipped, deleted, inserted or cut off anywhere: the journal is refused
    with one line and kept as it was, or (the damage in a torn last line, or a
    cut) read as a byte-identical prefix of it, never with a job changed."""
    from mancala.cluster.journal import Journal, JournalError, read_records
    at = int(where * (len(real) - 1))
    damaged = {"flip": real[:at] + bytes([real[at] ^ (noise[0] or 1)]) + real[at + 1:],
               "delete": real[:at] + real[at + length:], "insert": real[:at] + noise + real[at:],
               "cut": real[:at]}[how]
    path = tmp_path / "j.jsonl"
    path.write_bytes(damaged)
    honest = [r for r in records(real)[1] if "claim" not in r]
    try:
        found = read_records(path, Board(seeds=3))
        with Journal(path, Board(seeds=3), create=False) as journal:
            jobs = list(journal.jobs())
    except JournalError as exc:
        assert "\n" not in str(exc)
        assert path.read_bytes() == damaged
        return
    if found is not None:                           # what was read is the journal's, byte for byte
        assert damaged[:found.whole] == real[:found.whole]
    assert [{k: v for k, v in j.items() if k != "on_trust"} | {"key": [list(j["key"][0]), j["key"][1]]}
            for j in jobs] == \
        [{"after": None, **{k: v for k, v in r.items() if k != "check"}}     # parse_job's default
         for r in honest[:len(jobs)]]
    assert not any(j["on_trust"] for j in jobs)       # sealed here


@pytest.mark.parametrize("bound, says", [
    (True, "the bound is True, not a whole number or null"),
    (99, "the bound 99 is outside what the position's 36 seeds in the pits allow (-36..36)"),
    (-37, "the bound -37 is outside what the position's 36 seeds in the pits allow (-36..36)"),
    (2.0, "the bound is 2.0, not a whole number or null"),
])
def test_a_resealed_bound_the_position_cannot_have_is_refused(tmp_path, env, real, bound, says):
    """A forger who recomputes the checks still cannot make a job say what no
    position can have: a bound outside -S..S for S seeds in the pits, or no whole number."""
    head, body = records(real)
    body = [{**FORGED, "bound": bound}] + body
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(written(head, body, reseal=True))
    said = never_wrong(run(SOLVE + ["--journal", str(journal)], env))
    assert said is not None and f"line 2: {says}" in said, said


def test_resealed_results_that_contradict_each_other_are_refused(tmp_path, env, real):
    """The same position at least b by one line, at most b - 2 by another: one
    of them is false, and the second is named."""
    head, body = records(real)
    k = middle_job(body)
    liar = opposite(body[k])
    body.insert(k + 1, liar)
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(written(head, body, reseal=True))
    before = journal.read_bytes()
    said = never_wrong(run(SOLVE + ["--journal", str(journal)], env))
    assert said is not None and f"line {k + 3} says the value of pits" in said, said
    assert f"line {k + 2} says" in said and said.endswith("they contradict each other"), said
    assert journal.read_bytes() == before


def test_resealed_results_that_contradict_each_other_through_the_moves_are_refused(tmp_path, env,
                                                                                  real):
    """Pit 1 first (3 seeds to pits 2..4, North to move): with the journal's
    lines on that position taken out, a line saying North's value there is at
    most -30 makes South's at least +30 through that move, against a line
    (true) saying the start is at most +2."""
    head, body = records(real)
    pits = [0, 4, 4, 4, 3, 3, 3, 3, 3, 3, 3, 3]
    body = [r for r in body if "claim" in r or r["key"] != [pits, 1]]
    body.insert(len(body) - 1, {**FORGED, "beta": 3, "bound": 2})
    body.insert(len(body) - 1, {**FORGED, "key": [pits, 1], "beta": -29, "bound": -30, "depth": 1})
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(written(head, body, reseal=True))
    said = never_wrong(run(SOLVE + ["--journal", str(journal)], env))
    assert said is not None and said.endswith(
        f"line {len(body)} says the value of pits 0,4,4,4,3,3,3,3,3,3,3,3 (North to move) is at "
        f"most -30, which contradicts the lines before it through the moves of pits "
        f"3,3,3,3,3,3,3,3,3,3,3,3 (South to move)"), said


def test_a_resealed_line_the_solve_finds_false_is_refused_not_used(tmp_path, env, real):
    """The same false line as above without the true one beside it: the lines
    fit together, but the journal is foreign (resealed without this
    installation's key): refused. Taken on trust anyway, the solve starts; then either a worker's answer about that
    position contradicts it, or the answer the solve reaches does not follow
    from its journal: refused either way, never the +30 the line implies."""
    head, body = records(real)
    pits = [0, 4, 4, 4, 3, 3, 3, 3, 3, 3, 3, 3]
    body = [r for r in body if "claim" not in r and r["key"] != [pits, 1]]
    body.append({**FORGED, "key": [pits, 1], "beta": -29, "bound": -30, "depth": 1})
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(written(head, body, reseal=True))
    said = never_wrong(run(SOLVE + ["--journal", str(journal)], env, timeout=300))
    assert said is not None and "is format 2, before journals were sealed" in said, said
    said = never_wrong(run(SOLVE + ["--journal", str(journal), "--trust-journal"], env, timeout=300))
    assert said is not None and ("they contradict each other" in said or "which contradicts" in said
                                 or "does not follow" in said), said


def test_an_old_journal_can_still_be_verified(tmp_path, env, real):
    """Format 1 is not resumed, but its jobs can be checked: they are recomputed."""
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(format_1(real))
    done = run(["solve", "--verify-journal", str(journal), "--endgame", "0", "--threads", "1",
                "--json"], env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["format"] == 1 and report["disagreements"] == [] and report["claims"] == []
    assert report["checked"] == len(statements_of(real))


@pytest.mark.parametrize("how", ["forged line", "one bound flipped", "every bound +4"])
def test_verification_catches_a_forgery_with_its_checks_recomputed(tmp_path, env, real, how):
    """Checksums catch accidents, not intent: a forger who recomputes them is
    caught by recomputing the jobs. Every forged line is named; exit 1."""
    head, body = attack(real, how)
    honest = {json.dumps(r, sort_keys=True) for r in records(real)[1]}
    forged = [i + 2 for i, r in enumerate(body) if json.dumps(r, sort_keys=True) not in honest]
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(written(head, body, reseal=True))
    done = run(["solve", "--verify-journal", str(journal), "--endgame", "0", "--threads", "1",
                "--json"], env)
    if how == "every bound +4" and done.returncode == 2:
        # refused before a search, in one line naming a forged line: a shifted bound
        # contradicts what a line says beside (its facts, its move), or leaves its range
        line = int(done.stderr.split(" line ")[1].split()[0].rstrip(":"))
        assert done.stderr.count("\n") == 1 and line in forged, done.stderr
        assert "contradict" in done.stderr or "outside what" in done.stderr, done.stderr
        return
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    named = {d["line"] for d in report["disagreements"]}
    assert named and named <= set(forged), (named, forged)      # some shifted bounds stay true
    if how != "every bound +4":
        assert named == set(forged), (named, forged)
    text = run(["solve", "--verify-journal", str(journal), "--endgame", "0", "--threads", "1"], env)
    assert text.returncode == 1 and f"line {min(named)}: DISAGREES" in text.stdout, text.stdout


def test_an_honest_journal_verifies_and_its_proof_closes(tmp_path, env, real):
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(real)
    done = run(["solve", "--verify-journal", str(journal), "--endgame", "0", "--threads", "1",
                "--json"], env)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    with_result = statements_of(real)
    assert report["jobs"] == len(jobs_of(real)) and report["checked"] == len(with_result)
    assert report["nodes_claimed"] == sum(r["nodes"] for r in with_result)
    assert report["nodes_recomputed"] > 0 and report["disagreements"] == []
    assert report["proves"] == [TRUE_VALUE, TRUE_VALUE]
    assert [(c["value"], c["moves"], c["missing"]) for c in report["claims"]] == [(TRUE_VALUE, [4], [])]
    assert journal.read_bytes() == real                      # verification writes nothing


def test_a_sample_checks_its_share_and_the_same_seed_draws_the_same(tmp_path, env, real):
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(real)
    args = ["solve", "--verify-journal", str(journal), "--endgame", "0", "--threads", "1", "--json",
            "--sample", "0.25"]
    first = json.loads(run(args + ["--seed", "11"], env).stdout)
    again = json.loads(run(args + ["--seed", "11"], env).stdout)
    drawn = json.loads(run(args, env).stdout)
    with_result = len(statements_of(real))
    assert first["checked"] == -(-with_result // 4) and first["seed"] == 11
    assert (again["checked"], again["nodes_claimed"], again["nodes_recomputed"]) == \
        (first["checked"], first["nodes_claimed"], first["nodes_recomputed"])
    assert isinstance(drawn["seed"], int) and drawn["ok"]      # a fresh seed, said


def test_a_claim_the_jobs_do_not_prove_is_named(tmp_path, env, real):
    """The jobs honest, the claim at the end changed (with its check recomputed):
    the proof does not close on it."""
    head, body = records(real)
    body[-1]["value"] = TRUE_VALUE + 2
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(written(head, body, reseal=True))
    done = run(["solve", "--verify-journal", str(journal), "--endgame", "0", "--threads", "1"], env)
    assert done.returncode == 1
    assert f"line {len(body) + 1} claims +4, best move pit 5: NOT PROVED: the value +4: the jobs " \
           f"prove +2" in done.stdout, done.stdout


USER_FILES = [b'{"a":1}', b'{"a":1}\n', b"my notes\nline two\n", b"\x00\x01\x02binary",
              b"\n", b'{"kind":"mancala cluster solve journal"', b"[1, 2, 3]\n"]


@pytest.mark.parametrize("content", USER_FILES, ids=range(len(USER_FILES)))
def test_a_users_file_is_never_written(tmp_path, env, content):
    """printf '{"a":1}' > p.json; solve --journal p.json: the torn-line repair cut
    the file to nothing and a journal was written in it. Refused, byte for byte kept."""
    journal = tmp_path / "p.json"
    journal.write_bytes(content)
    said = never_wrong(run(SOLVE + ["--journal", str(journal)], env))
    assert said is not None and "is not a cluster solve journal (it is left as it is)" in said
    assert journal.read_bytes() == content


@pytest.mark.parametrize("kind", ["fifo", "link to /dev/zero", "/dev/full", "folder"])
@pytest.mark.parametrize("command", ["solve", "verify"])
def test_a_special_file_as_journal_is_refused_at_once(tmp_path, env, kind, command):
    """A FIFO hung the solve, a link to /dev/zero read 3 GB in 40 s, /dev/full hung."""
    path = tmp_path / "journal"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "/dev/full":
        path = Path("/dev/full")
    else:
        path.symlink_to("/dev/zero")
    args = SOLVE + ["--journal", str(path)] if command == "solve" else \
        ["solve", "--verify-journal", str(path), "--endgame", "0"]
    done = run(args, env, timeout=60)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and "is not a regular file" in lines[0], done.stderr


def test_a_journal_in_use_by_another_solve_is_refused(tmp_path, env, real):
    from mancala.cluster.journal import Journal
    path = tmp_path / "j.jsonl"
    path.write_bytes(real)
    with Journal(path, Board(seeds=3)):
        done = run(SOLVE + ["--journal", str(path)], env)
    assert done.returncode == 2 and done.stderr.strip().endswith("is in use by another solve"), \
        done.stderr
    assert path.read_bytes() == real


def test_a_live_result_that_contradicts_the_journal_is_refused(tmp_path, real):
    """What a worker answers is checked against the journal before it is written."""
    from mancala.cluster.journal import Journal, JournalError
    path = tmp_path / "j.jsonl"
    path.write_bytes(real)
    job = next(r for r in jobs_of(real) if r["bound"] is not None and r["bound"] >= r["beta"])
    liar = {**opposite(job), "key": (tuple(job["key"][0]), job["key"][1])}
    with Journal(path, Board(seeds=3)) as journal:
        with pytest.raises(JournalError, match="contradict each other"):
            journal.add(liar)
        with pytest.raises(JournalError, match="the bound is True"):
            journal.add({**liar, "bound": True})
    assert path.read_bytes() == real


def test_a_forged_fact_is_caught_by_the_verification(tmp_path, env, real):
    """What an exhausted search settled below its position rides in its line
    (``facts``): a fact turned into its opposite, the checks recomputed, is named
    by the verification (or refused at once when it contradicts another line)."""
    head, body = records(real)
    k = next(i for i, r in enumerate(body) if "claim" not in r and any(
        f[1] is not None and abs(f[1]) + 2 <= sum(r["key"][0]) - 1 for f in r.get("facts") or []))
    facts = [list(f) for f in body[k]["facts"]]
    i = next(i for i, f in enumerate(facts) if f[1] is not None)
    facts[i][1] = facts[i][1] - 2 if facts[i][1] >= 0 else facts[i][1] + 2   # a wrong bound
    body[k] = {**body[k], "facts": facts}
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(written(head, body, reseal=True))
    done = run(["solve", "--verify-journal", str(journal), "--endgame", "0", "--threads", "1",
                "--json"], env)
    if done.returncode == 2:
        assert "contradicts" in done.stderr or "contradict each other" in done.stderr, done.stderr
        return
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert {d["line"] for d in report["disagreements"]} == {k + 2}


@pytest.mark.parametrize("change, says", [
    ({"move": 7}, "names move 7, not a legal move"),
    ({"facts": [[0, 1]]}, "a fact is [0, 1], not [move, bound or null, facts]"),
    ({"facts": "none"}, "facts are 'none', not a list"),
])
def test_a_line_whose_move_or_facts_make_no_sense_is_refused(tmp_path, env, real, change, says):
    head, body = records(real)
    k = middle_job(body) if "facts" in change else \
        next(i for i, r in enumerate(body) if "claim" not in r and r.get("move") is not None)
    body[k] = {**body[k], **change}
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(written(head, body, reseal=True))
    said = never_wrong(run(SOLVE + ["--journal", str(journal)], env))
    assert said is not None and f"line {k + 2}" in said and says in said, said


@pytest.mark.parametrize("t, holds", [(TRUE_VALUE, True), (TRUE_VALUE + 1, False)])
def test_a_bound_question_s_journal_ends_with_a_claim_the_verification_proves(tmp_path, env, t, holds):
    """solve --at-least T on the cluster: Kalah(6,3) is worth +2 (the book's value), so
    'at least +2' is proved and 'at least +3' refuted; the journal's last line claims
    the answer, and --verify-journal recomputes its jobs and finds that they prove it."""
    pytest.importorskip("ray", reason=NEEDS_RAY)
    journal = tmp_path / "b.jsonl"
    done = run(SOLVE + ["--at-least", str(t), "--journal", str(journal), "--job-nodes", "20000",
                        "--json"], env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["proved"] is holds
    claim = records(journal.read_bytes())[1][-1]
    assert (claim["claim"], claim["at_least"], claim["holds"]) == ("bound", t, holds)
    checked = run(["solve", "--verify-journal", str(journal), "--endgame", "0", "--threads", "1",
                   "--json"], env, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    report = json.loads(checked.stdout)
    assert report["disagreements"] == [] and [c["missing"] for c in report["claims"]] == [[]]


# -- the trust model: what this installation sealed, verified, or took on trust -------------

ISSUE_SOLVE = ["solve", "--seeds", "3", "--endgame", "0", "--cluster", "local:2", "--threads", "1",
               "--job-nodes", "2000", "--json"]      # the issue's command, as typed


def sealed_elsewhere(head, body, home):
    """A journal's bytes as another installation (its data folder: home) seals them,
    with the project's own functions: what a forger with a key of their own makes."""
    from mancala.cluster import journal as format3
    old = os.environ.get("MANCALA_HOME")
    os.environ["MANCALA_HOME"] = str(home)
    try:
        head = format3.journal_header(Board(head["pits"], head["to_move"], capture=head["capture"]),
                                      head["id"])
        lines, last = [canonical(head)], head["check"]
        for record in body:
            record = format3.sealed({k: v for k, v in record.items() if k != "check"}, last)
            last = record["check"]
            lines.append(canonical(record))
    finally:
        os.environ["MANCALA_HOME"] = old
    return b"".join(line + b"\n" for line in lines)


def elsewhere(env, home):
    """env as another installation runs: its own data folder, so its own key."""
    return dict(env, MANCALA_HOME=str(home))


def resolved(body):
    """Indices of the jobs with a result whose opposite stays within range."""
    return [i for i, r in enumerate(body) if "claim" not in r and r["bound"] is not None
            and abs(r["bound"]) + 2 <= sum(r["key"][0])]


@pytest.mark.parametrize("how", ["format 2", "another key"])
def test_a_resealed_flipped_bound_is_never_resumed(tmp_path, env, real, how):
    """The issue's attack: one resolved job's bound flipped in a true journal and
    its checks recomputed (34 of 37 such flips passed the statement checks, and
    the resumed solve printed "value": 0, exit 0; the value is +2). A forger can
    recompute format 2's unkeyed checks or seal with a key of their own, never
    this installation's: refused in one line, the file kept, for every flip."""
    head, body = records(real)
    picks = resolved(body)
    for k in picks[::max(1, len(picks) // 6)]:
        forged = list(body)
        forged[k] = opposite(body[k])
        forged = [r for r in forged if "claim" not in r]
        data = written(head, forged, reseal=True) if how == "format 2" else \
            sealed_elsewhere(head, forged, tmp_path / "forger")
        journal = tmp_path / "j.jsonl"
        journal.write_bytes(data)
        done = run(ISSUE_SOLVE + ["--journal", str(journal)], env)
        said = never_wrong(done)
        assert said is not None, done.stdout                 # never resumed: never a value
        assert journal.read_bytes() == data
        if "contradict" not in said:                         # a flip the statements catch is named so
            whose = "is format 2, before journals were sealed" if how == "format 2" else \
                "is another installation's (key "
            assert whose in said and "--verify-journal" in said and "--trust-journal" in said, said


@pytest.mark.parametrize("how", ["format 2", "another key"])
def test_a_journal_written_from_nothing_is_refused(tmp_path, env, how):
    """One root line "at most -2" gave -2, exit 0; one root line "at least +4"
    made `--at-least 4` answer proved with 0 jobs run. Both refused now."""
    board = Board(seeds=3)
    head = {"pits": list(board.pits), "to_move": 0, "capture": "standard", "id": "0" * 16}
    for line, extra in (({**FORGED, "beta": -1, "bound": -2}, []),
                        ({**FORGED, "beta": 4, "bound": 4}, ["--at-least", "4"])):
        data = written(head, [line], reseal=True) if how == "format 2" else \
            sealed_elsewhere(head, [line], tmp_path / "forger")
        journal = tmp_path / "j.jsonl"
        journal.write_bytes(data)
        said = never_wrong(run(ISSUE_SOLVE + ["--journal", str(journal)] + extra, env))
        assert said is not None and "--trust-journal" in said, said
        assert journal.read_bytes() == data


def test_a_journal_taken_on_trust_says_so_beside_every_answer(tmp_path, env):
    """--trust-journal is the person's explicit choice: the forged "at least +4"
    is then used, and the answer says it rests on one line taken on trust, in
    the text and in --json; the node counts read from it are said to be read."""
    pytest.importorskip("ray", reason=NEEDS_RAY)
    board = Board(seeds=3)
    head = {"pits": list(board.pits), "to_move": 0, "capture": "standard", "id": "0" * 16}
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(sealed_elsewhere(head, [{**FORGED, "beta": 4, "bound": 4, "nodes": 777}],
                                         tmp_path / "forger"))
    done = run(ISSUE_SOLVE + ["--journal", str(journal), "--at-least", "4", "--trust-journal"], env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["proved"] is True and report["nodes"] == 0            # nothing measured here
    assert report["journal"] == {"jobs_read": 1, "nodes_read": 777, "jobs_the_answer_rests_on": 1,
                                 "taken_on_trust": 1}
    text = run(ISSUE_SOLVE[:-1] + ["--journal", str(journal), "--at-least", "4"], env)
    assert text.returncode == 0, text.stderr                # the trust was sealed: no flag again
    assert "Yes: proved" in text.stdout
    assert "1 jobs read (777 nodes, as the journal says: not measured here); the answer rests on 1 " \
           "of them, 1 taken on trust and not recomputed here" in text.stdout, text.stdout


def test_another_installations_journal_is_verified_then_resumed_as_its_own(tmp_path, env, real):
    """A true journal carried to another installation: refused there until
    --verify-journal recomputes it (and re-seals it), then resumed with nothing
    on trust; a torn copy or an edit after the re-seal is refused again."""
    pytest.importorskip("ray", reason=NEEDS_RAY)
    other = elsewhere(env, tmp_path / "other")
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(real)
    said = never_wrong(run(ISSUE_SOLVE + ["--journal", str(journal)], other))
    assert said is not None and "is another installation's (key " in said, said
    checked = run(["solve", "--verify-journal", str(journal), "--endgame", "0", "--threads", "1"],
                  other, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "re-sealed: every line of the journal now counts as verified here" in checked.stdout
    assert journal.read_bytes().startswith(real)           # appended to, nothing changed
    done = run(ISSUE_SOLVE + ["--journal", str(journal)], other)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["value"] == TRUE_VALUE and report["journal"]["taken_on_trust"] == 0
    assert report["journal"]["jobs_the_answer_rests_on"] > 0
    assert report["journal"]["nodes_read"] == sum(r["nodes"] for r in jobs_of(real))
    # the first installation now meets the other's attestation: from there on, foreign to it
    said = never_wrong(run(ISSUE_SOLVE + ["--journal", str(journal)], env))
    assert said is not None and "is another installation's (key " in said and " from line " in said


def test_a_sampled_verification_reseals_only_what_it_recomputed(tmp_path, env, real):
    """A share recomputed: those statements count as verified, the rest stay
    foreign (refused), and taken on trust afterwards fewer of the lines the
    answer rests on are on trust than without the sample."""
    pytest.importorskip("ray", reason=NEEDS_RAY)
    plain, sampled = tmp_path / "plain.jsonl", tmp_path / "sampled.jsonl"
    plain.write_bytes(real)
    sampled.write_bytes(real)
    other = elsewhere(env, tmp_path / "other")
    checked = run(["solve", "--verify-journal", str(sampled), "--endgame", "0", "--threads", "1",
                   "--sample", "0.5", "--seed", "3", "--json"], other, timeout=300)
    assert checked.returncode == 0, checked.stderr
    assert "recomputed statements now count as verified here" in json.loads(checked.stdout)["resealed"]
    said = never_wrong(run(ISSUE_SOLVE + ["--journal", str(sampled)], other))
    assert said is not None and "--trust-journal" in said
    on_trust = {}
    for path in (plain, sampled):
        done = run(ISSUE_SOLVE + ["--journal", str(path), "--trust-journal"], other)
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert report["value"] == TRUE_VALUE
        on_trust[path] = report["journal"]
    assert on_trust[plain]["taken_on_trust"] == on_trust[plain]["jobs_the_answer_rests_on"] > 0
    assert on_trust[sampled]["taken_on_trust"] < on_trust[plain]["taken_on_trust"]


@pytest.mark.parametrize("problem, says", [("mode", "may be read by others (mode 0644)"),
                                           ("size", "is not a key (5 bytes, not 32)"),
                                           ("folder", "is not a regular file")])
def test_a_bad_key_file_is_one_line(tmp_path, env, real, problem, says):
    """This installation's key (seal.key in the data folder): made once, mode 0600;
    one that others may read, of the wrong size, or no file, is refused in one line."""
    home = tmp_path / "home"
    home.mkdir()
    key = home / "seal.key"
    if problem == "folder":
        key.mkdir()
    else:
        key.write_bytes(os.urandom(32) if problem == "mode" else b"short")
        key.chmod(0o644 if problem == "mode" else 0o600)
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(real)
    done = run(["solve", "--verify-journal", str(journal), "--endgame", "0"], elsewhere(env, home))
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and says in lines[0], done.stderr
    assert journal.read_bytes() == real


def test_the_key_is_made_once_and_kept_private(tmp_path, env):
    home = tmp_path / "home"
    board = Board(seeds=3)
    head = {"pits": list(board.pits), "to_move": 0, "capture": "standard", "id": "0" * 16}
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(written(head, [], reseal=True))
    for _ in range(2):
        run(["solve", "--verify-journal", str(journal), "--endgame", "0"], elsewhere(env, home))
    key = home / "seal.key"
    assert key.stat().st_mode & 0o777 == 0o600 and len(key.read_bytes()) == 32
    assert os.listdir(home) == ["seal.key"]


def test_a_gigabyte_of_zeros_is_refused_from_its_first_bytes(tmp_path, env):
    """A 1 GB sparse file took 2.3 GB of memory just to be refused: now its first
    bytes are enough (no line 1 in the first 4 kB: no journal)."""
    import resource
    journal = tmp_path / "zeros.jsonl"
    with open(journal, "wb") as f:
        f.truncate(1 << 30)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    said = never_wrong(run(SOLVE + ["--journal", str(journal)], env))
    assert said is not None and "is not a cluster solve journal" in said
    said = never_wrong(run(["solve", "--verify-journal", str(journal), "--endgame", "0"], env))
    assert said is not None and "is not a cluster solve journal" in said
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    assert peak_kb < 400_000 or peak_kb == before          # a Python with the package: about 100 MB
    assert os.path.getsize(journal) == 1 << 30


@pytest.mark.parametrize("where", ["missing folder", "read-only folder"])
def test_a_journal_that_cannot_be_made_is_refused_before_ray_starts(tmp_path, env, where):
    """It was refused only after the runtime started (13.5 s): now before, in one
    line, and no runtime was begun (its folder stays empty)."""
    if where == "read-only folder" and os.geteuid() == 0:
        folder = Path("/proc/self")                         # root writes everywhere but there
    else:
        folder = tmp_path / "nowhere" if where == "missing folder" else tmp_path / "ro"
        if where == "read-only folder":
            folder.mkdir()
            folder.chmod(0o500)
    ray_files = tmp_path / "ray"
    ray_files.mkdir()
    done = run(SOLVE + ["--journal", str(folder / "j.jsonl")],
               dict(env, TMPDIR=str(ray_files), RAY_TMPDIR=str(ray_files)))
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert lines[0].startswith("mancala: cannot create the journal"), lines
    assert os.listdir(ray_files) == []


def test_verify_journal_with_no_name_is_one_line(env):
    done = run(["solve", "--verify-journal", ""], env)
    assert done.returncode == 2 and done.stderr.strip() == \
        "mancala: --verify-journal needs a file's name, not ''", done.stderr
