#!/usr/bin/python3
"""Every rocelab command line the documentation shows goes through rocelab's parser.

Usage: commands.py ROCELAB [DOC...]   (default: README.md and every labs/*/README*.md, English and Chinese)

The command lines are those in the Markdown files' fenced code blocks: as typed (`rocelab ...`),
after a prompt (`$ `) or a lab's echo of what it runs (`  + `), behind `sudo`, `ip netns exec NS`,
`env`, `timeout N` or a pipe. Each runs with ROCELAB_DRY_PARSE=1 (cli/cli.h): parsed and checked as
always, then exit 0 before any file, network or VM is touched; any other exit status fails the test,
so a guide cannot show a command line the CLI refuses.
"""
import glob
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# What follows `rocelab` on a command line (anything else, as "rocelab peer: error...", is output).
COMMANDS = {"explain", "gen", "gids", "lab", "peer", "realrxe", "replay", "report", "rewrite", "switch", "help", "--help", "-h",
            "--version"}
SEPARATORS = {";", "&&", "||", "|", "&", "(", ")", "|&", ";;"}
REDIRECTS = {">", ">>", "<", ">&", "&>", "<&", ">|", "&>>", "<<", "<<<"}


def code_lines(path):
    """(line number, text) of each line in the file's fenced code blocks, continuations joined."""
    out, fence, pending, start = [], None, "", 0
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            s = line.rstrip("\n")
            if s.lstrip().startswith("```") or s.lstrip().startswith("~~~"):
                fence = None if fence else s.lstrip()[:3]
                pending = ""
                continue
            if not fence:
                continue
            if not pending:
                start = no
            if s.endswith("\\"):
                pending += s[:-1] + " "
                continue
            out.append((start, pending + s))
            pending = ""
    return out


def strip_prompt(line):
    s = line.strip()
    for p in ("$ ", "+ ", "# $ "):
        if s.startswith(p):
            return s[len(p):].strip()
    return s


def segments(line):
    """The simple commands of a shell line: lists of words, redirections dropped."""
    try:
        lex = shlex.shlex(line, posix=True, punctuation_chars=True)
        lex.whitespace_split = True
        lex.commenters = "#"
        toks = list(lex)
    except ValueError:
        return []
    segs, cur, skip = [], [], False
    for i, t in enumerate(toks):
        if skip:
            skip = False
            continue
        if t in SEPARATORS:
            segs.append(cur)
            cur = []
        elif t in REDIRECTS:
            skip = True
            if cur and cur[-1].isdigit():
                cur.pop()  # 2>/dev/null: the 2 belongs to the redirection
        else:
            cur.append(t)
    segs.append(cur)
    return [s for s in segs if s]


def rocelab_argv(words):
    """The arguments after `rocelab` if the simple command @words runs rocelab; else None."""
    w = list(words)
    while w:
        if w[0] in ("sudo", "exec", "command", "time", "env") or "=" in w[0] and not w[0].startswith("-"):
            w = w[1:]
        elif w[0] == "timeout" and len(w) > 1:
            w = w[2:]
        elif w[:3] == ["ip", "netns", "exec"] and len(w) > 3:
            w = w[4:]
        else:
            break
    if len(w) >= 2 and w[0] == "rocelab" and w[1] in COMMANDS:
        return w[1:]
    return None


def main():
    rocelab = os.path.abspath(sys.argv[1])
    docs = sys.argv[2:] or [os.path.join(ROOT, "README.md")] + sorted(
        glob.glob(os.path.join(ROOT, "labs", "*", "README*.md")))
    env = dict(os.environ, ROCELAB_DRY_PARSE="1")
    seen, passed, failed = set(), 0, 0
    # The switch stops after the parser, never before it: a line it must refuse is refused.
    for bad in (["peer", "--sizee", "1", "10.0.0.2"], ["lab", "run", "99"], ["realrxe", "exec", "--", "true"]):
        r = subprocess.run([rocelab] + bad, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if r.returncode != 2:
            print("FAIL ROCELAB_DRY_PARSE let 'rocelab %s' through (exit %d)" % (" ".join(bad), r.returncode))
            return 1
    with tempfile.TemporaryDirectory() as tmp:
        for doc in docs:
            rel = os.path.relpath(doc, ROOT)
            for no, line in code_lines(doc):
                for words in segments(strip_prompt(line)):
                    argv = rocelab_argv(words)
                    if argv is None or tuple(argv) in seen:
                        continue
                    seen.add(tuple(argv))
                    shown = "rocelab " + " ".join(shlex.quote(a) for a in argv)
                    try:
                        r = subprocess.run([rocelab] + argv, cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=20)
                        rc, err = r.returncode, r.stderr.decode(errors="replace").strip()
                    except subprocess.TimeoutExpired:
                        rc, err = "timeout", "did not stop after parsing"
                    if rc == 0:
                        passed += 1
                    else:
                        failed += 1
                        print("FAIL %s:%d: %s\n     exit %s%s: %s" % (
                            rel, no, shown, rc, " (usage)" if rc == 2 else "", err.splitlines()[-1] if err else ""))
    print("docs: %d command lines parsed, %d refused" % (passed, failed))
    if passed < 100:
        print("FAIL fewer command lines than the docs hold (%d): is the extraction broken?" % passed)
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
