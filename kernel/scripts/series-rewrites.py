#!/usr/bin/env python3
"""series-rewrites.py TREE: which patches rewrite what earlier ones added.

A series in its final form adds each line once: no patch removes or
replaces a line that an earlier patch of the same series added.  For the
dev tree TREE (make dev-tree: tag "base", one commit per patch), print,
for every patch that removes such lines, how many came from which earlier
patch, by file; then a summary line.  Lines of the base kernel that a
patch changes are the point of the series and are not counted.  Exit
status 0 whatever is found: this is a report.
"""
import collections
import re
import subprocess
import sys


def git(tree, *args):
    return subprocess.run(['git', '-C', tree, *args], check=True,
                          capture_output=True, text=True).stdout


def removed_ranges(tree, commit):
    """(file, first line, count) of each hunk's removed lines, in the parent."""
    path = None
    for line in git(tree, 'diff', '-U0', '--no-renames', '--no-color',
                    commit + '^', commit).splitlines():
        if line.startswith('--- '):
            path = None if line == '--- /dev/null' else line[6:]
            continue
        m = re.match(r'@@ -(\d+)(?:,(\d+))? \+', line)
        if m and path:
            count = 1 if m.group(2) is None else int(m.group(2))
            if count:
                yield path, int(m.group(1)), count


def origins(tree, commit, path, first, count):
    """The commit that added each of those lines, from git blame."""
    out = git(tree, 'blame', '--porcelain', '-L', f'{first},+{count}',
              commit + '^', '--', path)
    for line in out.splitlines():
        m = re.match(r'^([0-9a-f]{40}) \d+ \d+', line)
        if m:
            yield m.group(1)


def lines(n):
    return f'{n} line' if n == 1 else f'{n} lines'


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: series-rewrites.py TREE')
    tree = sys.argv[1]
    try:
        commits = git(tree, 'rev-list', '--reverse', 'base..HEAD').split()
    except subprocess.CalledProcessError:
        sys.exit(f'series-rewrites: {tree} is not a dev tree with a tag '
                 '"base" (make dev-tree)')
    number = {c: i + 1 for i, c in enumerate(commits)}
    rewriters = total = 0
    for commit in commits:
        found = collections.Counter()
        for path, first, count in removed_ranges(tree, commit):
            for origin in origins(tree, commit, path, first, count):
                if origin in number:
                    found[number[origin], path] += 1
        if not found:
            continue
        rewriters += 1
        total += sum(found.values())
        subject = git(tree, 'log', '-1', '--format=%s', commit).strip()
        print(f'{number[commit]:2} {subject}')
        for (earlier, path), count in sorted(found.items()):
            print(f'     {count:4} from patch {earlier:2} in {path}')
    print(f'{rewriters} of {len(commits)} patches rewrite {lines(total)} that '
          'an earlier patch added')


if __name__ == '__main__':
    main()
