#!/usr/bin/env python3
"""doccmd.py: the commands and file links of README.md and docs/**/*.md, extracted and checked.

  doccmd.py list  [FILE.md ...]         print every command as FILE:LINE: COMMAND (with its rule)
  doccmd.py run   BUILD [FILE.md ...]   run every command, from a scratch copy of the clone root
                                        (without FILEs: also the `Examples:` of `archsim --help`
                                        and of every `archsim COMMAND --help`)
  doccmd.py links [FILE.md ...]         check that every relative link names a file of the repo
                                        (without FILEs: every *.md of the repository)

Which lines are commands (the rule the docs follow, see docs/testing.md "Doc commands"):
  * only fenced blocks whose info string is sh, bash, shell or console; plain ``` and ```text
    blocks are output or synopses and are never run;
  * in a console block only lines starting with `$ ` are commands (the rest is output);
  * in sh/bash/shell blocks every line that is not blank and not a `#` comment is a command;
    a leading `$ ` is dropped;
  * a command goes on over the next lines while it ends with `\\` or is not yet complete shell
    (an open `for ... do`, quote or here-document: checked with `bash -n`);
  * a command's own trailing comment may promise its exit status: `# exit 3`, `# weak: exit 3`,
    `# exit 0: every check passes` (the status the reader is told to expect);
  * an HTML comment in the line before the fence annotates the whole block:
      <!-- doc-test: exit N -->          every command of the block must exit N
      <!-- doc-test: timeout S -->       every command gets S seconds (default 60)
      <!-- doc-test: skip: REASON -->    the block is not run; REASON is printed
      <!-- doc-test: long: REASON -->    run only with DOC_TEST_LONG=1 (then with a 600 s
                                         limit per command), otherwise skipped like `skip`
    (several may share one comment, separated by `;`: `<!-- doc-test: exit 64; timeout 5 -->`);
  * a few commands are never run anywhere, each for the reason in SKIP below (the test suite
    itself, multi-minute builds, re-recording the sample traces, MPI).

How they run: each doc file gets its own scratch copy of the clone (the files git knows plus
build/, timestamps kept; the big input folders of LINKED are symbolic links to the clone's, and
the test fails if git sees a change in them afterwards) and its commands run there in document
order, with cwd = that copy and PATH starting with a folder whose `archsim` is the built binary,
so both `archsim ...` and `./archsim ...` work and a file an earlier block made is there for a
later one; HOME is a folder of that copy (so `make install PREFIX=$HOME/.local` stays there).
Nothing is written into the tree itself. The docs run two at a time
(DOC_TEST_JOBS=N for more).
"""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LANGS = {"sh", "bash", "shell", "console"}
DEFAULT_TIMEOUT = 60

# Commands never run by the doc test, each with why (checked against the command's start).
SKIP = [
    (re.compile(r"^make (test|unit)\b"), "the test suite itself (this test is part of it)"),
    (re.compile(r"^make bench"), "make bench takes minutes (speed figures)"),
    (re.compile(r"^make fuzz"), "make fuzz runs AFL++ for FUZZ_SECONDS per harness"),
    (re.compile(r"^make traces\b"), "make traces re-records every sample trace (minutes)"),
    (re.compile(r"^make( .*)? (DEBUG|WERROR)=1"), "a full rebuild with other flags (minutes)"),
    (re.compile(r"^make clean\b"), "would remove the build the later commands use"),
    (re.compile(r"^(sudo )?apt(-get)? "), "installs system packages"),
    (re.compile(r"^mpirun\b|\bmpirun "), "MPI runs need mpirun and several processes"),
]


def doc_files(args):
    if args:
        return [os.path.relpath(os.path.abspath(a), ROOT) for a in args]
    out = ["README.md"]
    for d, subdirs, files in os.walk(os.path.join(ROOT, "docs")):
        subdirs.sort()
        for f in sorted(files):
            if f.endswith(".md"):
                out.append(os.path.relpath(os.path.join(d, f), ROOT))
    return out


def complete(text):
    """True when TEXT is complete shell (no open loop, quote or here-document)."""
    if text.rstrip().endswith("\\"):
        return False
    r = subprocess.run(["bash", "-n"], input=text + "\n", capture_output=True, text=True)
    return r.returncode == 0 or "unexpected end of file" not in r.stderr


def parse_annotation(lines, fence_idx):
    """The doc-test annotation in the line before the fence at FENCE_IDX, as a dict."""
    ann = {}
    j = fence_idx - 1
    while j >= 0 and lines[j].strip() == "":
        j -= 1
    if j < 0:
        return ann
    m = re.match(r"^\s*<!--\s*doc-test:\s*(.*?)\s*-->\s*$", lines[j])
    if not m:
        return ann
    for part in m.group(1).split(";"):
        part = part.strip()
        if part.startswith("skip:"):
            ann["skip"] = part[5:].strip() or "no reason given"
        elif part.startswith("long:"):
            ann["long"] = part[5:].strip() or "no reason given"
        elif re.fullmatch(r"exit \d+", part):
            ann["exit"] = int(part.split()[1])
        elif re.fullmatch(r"timeout \d+", part):
            ann["timeout"] = int(part.split()[1])
        else:
            ann["bad"] = part
    if ann.get("skip") == "no reason given" or ann.get("long") == "no reason given":
        ann["bad"] = "skip: and long: need a reason"
    return ann


def extract(path):
    """[(line, command, annotation)] of one markdown file, in document order."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        lines = f.read().split("\n")
    cmds = []
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)(```+|~~~+)\s*([A-Za-z0-9_+-]*)", lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = len(m.group(1)), m.group(2), m.group(3).lower()
        ann = parse_annotation(lines, i)
        body_start = i + 1
        j = body_start
        while j < len(lines) and not lines[j].strip().startswith(fence):
            j += 1
        body = [l[indent:] if l[:indent].strip() == "" else l.lstrip() for l in lines[body_start:j]]
        i = j + 1
        if lang not in LANGS:
            continue
        k = 0
        while k < len(body):
            raw = body[k]
            s = raw.strip()
            lineno = body_start + k + 1
            k += 1
            if lang == "console":
                if not s.startswith("$ "):
                    continue
                s = s[2:]
            else:
                if s == "" or s.startswith("#"):
                    continue
                if s.startswith("$ "):
                    s = s[2:]
            text = s
            while not complete(text) and k < len(body):
                nxt = body[k].rstrip()
                k += 1
                if lang == "console" and nxt.lstrip().startswith("> "):
                    nxt = nxt.lstrip()[2:]
                text += "\n" + nxt
            cmds.append((lineno, text, ann))
    return cmds


def help_texts(build):
    """[(name, text)]: `archsim --help` and `archsim COMMAND --help` for every command it lists."""
    exe = os.path.join(build, "archsim")

    def get(args):
        r = subprocess.run([exe] + args, cwd=ROOT, capture_output=True, text=True, timeout=30)
        return r.stdout + r.stderr

    top = get(["--help"])
    out = [("archsim --help", top)]
    in_cmds = False
    for line in top.split("\n"):
        if re.match(r"^Commands:", line):
            in_cmds = True
            continue
        if in_cmds and re.match(r"^\S", line):
            break
        m = re.match(r"^  ([a-z][a-z-]*)\b", line) if in_cmds else None
        if m and m.group(1) != "help":
            out.append((f"archsim {m.group(1)} --help", get([m.group(1), "--help"])))
    return out


def extract_help(text):
    """[(line, command, {})]: the commands of a help text's `Examples:` section. A run of two or
    more spaces then `(` or `#` starts a comment, as in `archsim run X --teach   (per access)`;
    a comment `# exit N` promises that status, as in the docs."""
    cmds = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if not re.match(r"^Examples?:\s*$", lines[i]):
            i += 1
            continue
        i += 1
        while i < len(lines) and (lines[i].startswith(" ") or lines[i] == ""):
            s = lines[i].strip()
            lineno = i + 1
            i += 1
            if not s or s.startswith("#"):
                continue
            text_ = s
            while text_.endswith("\\") and i < len(lines):
                text_ += "\n" + lines[i].strip()
                i += 1
            ann = {}
            m = re.search(r"\s{2,}#(?:[^#]*:)?\s*exit (\d+)\b[^#]*$", text_)
            if m:                       # `# exit 1`: the status the help promises
                ann["exit"] = int(m.group(1))
            text_ = re.sub(r"\s{2,}[(#].*$", "", text_)
            cmds.append((lineno, text_, ann))
    return cmds


def comment_exit(cmd):
    """The exit status a command's own trailing comment promises (`# exit 3`, `# weak: exit 3`,
    `# exit 0: every check passes`), 0 when it promises none."""
    m = re.search(r"\s#(?:[^#]*:)?\s*exit (\d+)\b[^#]*$", cmd.splitlines()[-1])
    return int(m.group(1)) if m else 0


def skip_reason(cmd, ann):
    if "skip" in ann:
        return ann["skip"]
    if "long" in ann and os.environ.get("DOC_TEST_LONG") != "1":
        return "long, run with DOC_TEST_LONG=1: " + ann["long"]
    first = cmd.lstrip()
    for pat, why in SKIP:
        if pat.search(first):
            return why
    return None


# Folders the doc commands only read: linked into each scratch copy instead of copied (they hold
# most of the repository's files). run() fails when git sees any change in them afterwards.
LINKED = ("tests/fuzz", "tests/tpu", "tests/unit", "tests/errors", "tests/litmus", "traces/samples")


def copy_tree(dst):
    """DST := the files git knows (tracked, or untracked and not ignored), LINKED folders as
    symbolic links to the clone's own."""
    files = subprocess.run(["git", "ls-files", "-z", "-c", "-o", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, check=True).stdout.split(b"\0")
    for d in LINKED:
        os.makedirs(os.path.dirname(os.path.join(dst, d)), exist_ok=True)
        os.symlink(os.path.join(ROOT, d), os.path.join(dst, d))
    for f in files:
        f = f.decode()
        if not f or f.startswith(tuple(d + "/" for d in LINKED)):
            continue
        src = os.path.join(ROOT, f)
        if not os.path.lexists(src) or os.path.isdir(src) and not os.path.islink(src):
            continue
        d = os.path.join(dst, f)
        os.makedirs(os.path.dirname(d), exist_ok=True)
        shutil.copy2(src, d, follow_symlinks=False)


def linked_state():
    return subprocess.run(["git", "status", "--porcelain", "--ignored", "--"] + list(LINKED),
                          cwd=ROOT, capture_output=True, text=True).stdout


def run_doc(path, build, scratch_all, cmds=None):
    """Runs one doc's commands (or CMDS, named PATH) in order in its own scratch copy:
    (ok, failures, skipped, notes)."""
    failures, skipped, notes, ok = [], [], [], 0
    if cmds is None:
        cmds = extract(path)
    if not cmds or all(skip_reason(c, a) is not None for _, c, a in cmds):
        skipped += [(f"{path}:{l}", c, skip_reason(c, a)) for l, c, a in cmds]
        return ok, failures, skipped, notes
    root = os.path.join(scratch_all, re.sub(r"[^A-Za-z0-9.-]+", "_", path).lstrip("._"))
    os.makedirs(root)
    copy_tree(root)
    # the whole build, timestamps kept, so that `make` in the copy has nothing to do
    shutil.copytree(build, os.path.join(root, "build"), symlinks=True,
                    ignore=shutil.ignore_patterns("*.log"))
    if os.path.lexists(os.path.join(root, "archsim")):
        os.remove(os.path.join(root, "archsim"))
    os.symlink("build/archsim", os.path.join(root, "archsim"))
    bindir = os.path.join(root, ".doc-test-bin")
    os.makedirs(bindir)
    os.symlink(os.path.join(root, "build", "archsim"), os.path.join(bindir, "archsim"))
    # `make run` runs tools/deps.sh install, which calls apt-get as root when a package is
    # missing: the doc test never changes the machine
    with open(os.path.join(bindir, "apt-get"), "w") as f:
        f.write("#!/bin/sh\necho 'doc test: apt-get is not run here; install the packages first' >&2\n"
                "exit 1\n")
    os.chmod(os.path.join(bindir, "apt-get"), 0o755)
    # HOME is a folder of the scratch copy: `make install PREFIX=$HOME/.local` (README,
    # docs/install.md) installs there, never into the home of whoever runs the tests
    home = os.path.join(root, ".doc-test-home")
    os.makedirs(home)
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), LC_ALL="C",
               HOME=home)
    for lineno, cmd, ann in cmds:
        where = f"{path}:{lineno}"
        if "bad" in ann:
            failures.append((where, cmd, f"unknown doc-test annotation '{ann['bad']}'", ""))
            continue
        why = skip_reason(cmd, ann)
        if why is not None:
            skipped.append((where, cmd, why))
            continue
        want = ann.get("exit", comment_exit(cmd))
        limit = ann.get("timeout", 600 if "long" in ann else DEFAULT_TIMEOUT)
        t0 = time.monotonic()
        try:
            r = subprocess.run(["bash", "-c", "ulimit -v 4000000; " + cmd], cwd=root, env=env,
                               stdin=subprocess.DEVNULL, capture_output=True, timeout=limit)
            rc, out = r.returncode, (r.stdout + r.stderr).decode("utf-8", "replace")
        except subprocess.TimeoutExpired as e:
            rc = f"timeout after {limit} s"
            out = ((e.stdout or b"") + (e.stderr or b"")).decode("utf-8", "replace")
        dt = time.monotonic() - t0
        if rc != want:
            failures.append((where, cmd, f"exit {rc}, expected {want}", out))
        else:
            ok += 1
        if dt > 5:
            notes.append(f"slow ({dt:.0f} s): {where}: {cmd.splitlines()[0]}")
    shutil.rmtree(root, ignore_errors=True)
    return ok, failures, skipped, notes


def run(build, paths, jobs, helps=False):
    build = os.path.abspath(build)
    if not os.access(os.path.join(build, "archsim"), os.X_OK):
        print(f"doccmd: {build}/archsim: not built (run make first)")
        return 2
    failures, ok, skipped = [], 0, []
    scratch_all = tempfile.mkdtemp(prefix="archsim-doccmd-")
    t_all = time.monotonic()
    before = linked_state()
    try:
        jobs_list = [(p, None) for p in paths]
        if helps:       # every help text's examples, each help in its own scratch copy
            jobs_list += [(name, extract_help(text)) for name, text in help_texts(build)]
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(lambda j: run_doc(j[0], build, scratch_all, j[1]), jobs_list))
    finally:
        shutil.rmtree(scratch_all, ignore_errors=True)
    after = linked_state()
    if after != before:
        failures.append(("(tree)", "git status --porcelain --ignored -- " + " ".join(LINKED),
                         "a doc command wrote into a folder it should only read", after))
    for r_ok, r_fail, r_skip, r_notes in results:     # in document order, whatever finished first
        ok += r_ok
        failures += r_fail
        skipped += r_skip
        for n in r_notes:
            print(n)
    for where, cmd, why in skipped:
        print(f"skip {where}: {cmd.splitlines()[0]}  ({why})")
    for where, cmd, why, out in failures:
        print(f"FAIL {where}: {why}\n  $ " + cmd.replace("\n", "\n    "))
        for l in out.strip().splitlines()[-6:]:
            print("  | " + l)
    print(f"doc commands: {ok} ran as written, {len(failures)} failed, "
          f"{len(skipped)} skipped ({time.monotonic() - t_all:.0f} s)")
    return 1 if failures else 0


LINK = re.compile(r"(?<!\!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]]*\]\(([^)\s]+)\)")


def links(paths):
    bad = 0
    n = 0
    for path in paths:
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            text = f.read()
        in_code = False
        for lineno, line in enumerate(text.split("\n"), 1):
            if re.match(r"^\s*(```|~~~)", line):
                in_code = not in_code
                continue
            if in_code:
                continue
            line = re.sub(r"`[^`]*`", "", line)      # inline code is not a link
            for m in LINK.finditer(line):
                target = m.group(1) or m.group(2)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                    continue                            # URL, mailto:, anchor in this file
                target = target.split("#", 1)[0]
                n += 1
                full = os.path.normpath(os.path.join(ROOT, os.path.dirname(path), target))
                if not full.startswith(ROOT + os.sep) and full != ROOT:
                    print(f"FAIL {path}:{lineno}: link '{target}' leaves the repository")
                    bad += 1
                elif not os.path.exists(full):
                    print(f"FAIL {path}:{lineno}: link '{target}': no such file in the repository")
                    bad += 1
    print(f"doc links: {n - bad} resolve, {bad} broken")
    return 1 if bad else 0


def main(argv):
    if len(argv) < 2 or argv[1] not in ("list", "run", "links"):
        print(__doc__)
        return 64
    if argv[1] == "list":
        entries = [(p, extract(p)) for p in doc_files(argv[2:])]
        if not argv[2:] and os.access(os.path.join(ROOT, "build", "archsim"), os.X_OK):
            entries += [(n, extract_help(t)) for n, t in help_texts(os.path.join(ROOT, "build"))]
        for path, cmds in entries:
            for lineno, cmd, ann in cmds:
                why = skip_reason(cmd, ann)
                want = ann.get("exit", comment_exit(cmd))
                tag = f"  [skip: {why}]" if why else (f"  [exit {want}]" if want else "")
                print(f"{path}:{lineno}: {cmd}{tag}")
        return 0
    if argv[1] == "links":
        if argv[2:]:
            return links(doc_files(argv[2:]))
        # every markdown file of the repository, not only README.md and docs/
        files = subprocess.run(["git", "ls-files", "-c", "-o", "--exclude-standard", "*.md"],
                               cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
        return links([f for f in files if os.path.exists(os.path.join(ROOT, f))])
    if len(argv) < 3:
        print("doccmd.py run BUILD [FILE.md ...]")
        return 64
    jobs = int(os.environ.get("DOC_TEST_JOBS", "2"))
    return run(argv[2], doc_files(argv[3:]), max(1, jobs), helps=not argv[3:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
