#!/usr/bin/env python3
"""hpcpack-decode.py: what HPC Pack is given by a job ddpgen wrote as a
cmd.exe batch file or a PowerShell script.

Usage: hpcpack-decode.py cmd|ps FILE

Prints one field a line, KEY=VALUE, in the order t-hpcpack-formats.sh
prints the same fields of the XML job, so the three can be compared byte
for byte. The readers follow the documented rules, not this project's
code: for cmd, a batch line's percent expansion, then its caret pass,
then the MS C runtime's argument splitting (which .NET programs such as
job.exe share), with the task's command line taken as the words after
job add's options joined by spaces (the unconfirmed part, see
templates/hpcpack.cmd); for ps, PowerShell's single-quoted strings, in
which any of ' U+2018 U+2019 U+201A U+201B is a quote and two in a row
stand for the second. Anything else in the statements read is an error,
so a template that drifts from what is read here fails loudly.
"""

import re
import sys


class DecodeError(Exception):
    pass


def fail(msg):
    raise DecodeError(msg)


# ---- cmd.exe ----------------------------------------------------------

def cmd_percent(line, env):
    """Batch-file percent expansion: %% is %, %NAME% and %NAME:~N% are
    variables (empty when undefined); nothing else is expected here."""
    out = []
    i = 0
    while i < len(line):
        c = line[i]
        if c != '%':
            out.append(c)
            i += 1
            continue
        if line.startswith('%%', i):
            out.append('%')
            i += 2
            continue
        m = re.compile(r'%([A-Za-z_][A-Za-z0-9_]*)(:~(-?[0-9]+))?%').match(
            line, i)
        if m is None:
            fail('unexpected %% at column %d of %r' % (i, line))
        value = env.get(m.group(1).upper(), '')
        if m.group(3) is not None:
            value = value[int(m.group(3)):]
        out.append(value)
        i = m.end()
    return ''.join(out)


def cmd_carets(line):
    """The caret pass: outside quotes ^ escapes the next character and
    & | < ( ) are operators (refused); > starts a redirection, whose
    target is returned apart. A " toggles quote mode and is kept."""
    out = []
    redirect = None
    inq = False
    i = 0
    while i < len(line):
        c = line[i]
        if c == '"':
            inq = not inq
            out.append(c)
        elif inq:
            out.append(c)
        elif c == '^':
            if i + 1 >= len(line):
                fail('caret at the end of %r' % line)
            i += 1
            out.append(line[i])
        elif c == '>':
            m = re.compile(r'>\s*("[^"]*"|\S+)\s*$').match(line, i)
            if m is None:
                fail('redirection not at the end of %r' % line)
            redirect = m.group(1).strip('"')
            break
        elif c in '&|<()':
            fail('unescaped %r in %r' % (c, line))
        else:
            out.append(c)
        i += 1
    if inq:
        fail('unclosed quote in %r' % line)
    return ''.join(out), redirect


def argv_split(s):
    """The MS C runtime's rules (CommandLineToArgvW's after argv[0])."""
    args = []
    i, n = 0, len(s)
    while True:
        while i < n and s[i] in ' \t':
            i += 1
        if i >= n:
            return args
        arg = []
        inq = False
        while i < n and (inq or s[i] not in ' \t'):
            if s[i] == '\\':
                k = 0
                while i + k < n and s[i + k] == '\\':
                    k += 1
                if i + k < n and s[i + k] == '"':
                    arg.append('\\' * (k // 2))
                    i += k
                    if k % 2 == 1:
                        arg.append('"')
                        i += 1
                    continue
                arg.append('\\' * k)
                i += k
            elif s[i] == '"':
                if inq and i + 1 < n and s[i + 1] == '"':
                    arg.append('"')
                    i += 2
                else:
                    inq = not inq
                    i += 1
            else:
                arg.append(s[i])
                i += 1
        args.append(''.join(arg))


def options(args, where):
    """Leading /name:value options, then the rest."""
    opts = []
    i = 0
    while i < len(args) and args[i].startswith('/'):
        name, sep, value = args[i][1:].partition(':')
        if not sep:
            fail('%s: option %r has no value' % (where, args[i]))
        opts.append((name.lower(), value))
        i += 1
    return opts, args[i:]


def set_a(expr, env):
    """set /a with the operators the template uses."""
    if not re.fullmatch(r'[A-Za-z0-9_+*/%() -]+', expr):
        fail('set /a %r' % expr)
    py = re.sub(r'[A-Za-z_][A-Za-z0-9_]*',
                lambda m: str(int(env.get(m.group(0).upper(), '0') or 0)),
                expr)
    return str(eval(py.replace('/', '//'), {'__builtins__': {}}))


class Job:
    def __init__(self):
        self.props = {}
        self.env = []
        self.tasks = []
        self.submitted = False

    def dump(self):
        p = self.props
        lines = ['job.name=' + p['name'],
                 'job.nodes=' + p['nodes'],
                 'job.exclusive=' + p['exclusive'],
                 'job.fail_on_task_failure=' + p['fail_on_task_failure'],
                 'job.node_group=' + p.get('node_group', ''),
                 'job.runtime=' + p.get('runtime', '')]
        lines += ['env=%s=%s' % nv for nv in self.env]
        for i, t in enumerate(self.tasks, 1):
            for key in ('name', 'nodes', 'type', 'rerunnable', 'workdir',
                        'stdout', 'stderr', 'command'):
                lines.append('task.%d.%s=%s' % (i, key, t[key]))
        return '\n'.join(lines) + '\n'


CMD_JOB_NEW = {'jobname': 'name', 'numnodes': 'nodes',
               'exclusive': 'exclusive',
               'failontaskfailure': 'fail_on_task_failure',
               'nodegroup': 'node_group', 'runtime': 'runtime'}
CMD_JOB_ADD = {'name': 'name', 'numnodes': 'nodes', 'type': 'type',
               'rerunnable': 'rerunnable', 'workdir': 'workdir',
               'stdout': 'stdout', 'stderr': 'stderr'}


def cmd_job_new(job, args):
    opts, rest = options(args, 'job new')
    if rest:
        fail('job new: stray arguments %r' % rest)
    for name, value in opts:
        if name == 'jobenv':
            var, sep, val = value.partition('=')
            if not sep:
                fail('/jobenv:%s has no =' % value)
            job.env.append((var, val))
        elif name in CMD_JOB_NEW:
            job.props[CMD_JOB_NEW[name]] = value
        else:
            fail('job new: unknown option /%s' % name)


def cmd_job_add(job, args):
    if not args or args[0] != '42':
        fail('job add: not the job id: %r' % args[:1])
    opts, command = options(args[1:], 'job add')
    task = {}
    for name, value in opts:
        if name not in CMD_JOB_ADD:
            fail('job add: unknown option /%s' % name)
        task[CMD_JOB_ADD[name]] = value
    if not command:
        fail('job add: no command')
    task['command'] = ' '.join(command)
    job.tasks.append(task)


# The loop that takes the job id from what job new printed.
CMD_FOR_ID = re.compile(r'for /f "usebackq tokens=1,\* delims=:" %%a in '
                        r'\("([^"]*)"\) do if /i "%%a"=="([^"]*)" '
                        r'set /a (\w+)=%%b')


def cmd_for_id(m, env):
    output = env.get('\0' + cmd_percent(m.group(1), env))
    if output is None:
        fail('for /f reads a file job new did not write')
    for line in output.split('\n'):
        first, sep, rest = line.partition(':')
        if sep and first.lower() == m.group(2).lower():
            env[m.group(3).upper()] = set_a(rest, env)


def cmd_run(line, job, env):
    """One statement of the straight-line part of the batch file."""
    low = line.lower()
    if low.startswith('set /a '):
        name, sep, expr = cmd_percent(line[7:], env).partition('=')
        if not sep:
            fail('set /a without =: %r' % line)
        env[name.strip().upper()] = set_a(expr, env)
        return
    m = re.fullmatch(r'if %(\w+)% lss (\d+) (set ".*")', line)
    if m:
        if int(env.get(m.group(1).upper(), '0')) < int(m.group(2)):
            cmd_run(m.group(3), job, env)
        return
    m = CMD_FOR_ID.fullmatch(line)
    if m:
        cmd_for_id(m, env)
        return
    m = re.fullmatch(r'set "([A-Za-z_]\w*)=(.*)"', line)
    if m:
        env[m.group(1).upper()] = cmd_percent(m.group(2), env)
        return
    words = low.split()
    if words[:2] not in (['job', 'new'], ['job', 'add'], ['job', 'submit']):
        fail('unread line: %r' % line)
    text, redirect = cmd_carets(cmd_percent(line, env))
    args = argv_split(text)
    if words[1] == 'new':
        if redirect is None:
            fail('job new output is not kept for its id')
        cmd_job_new(job, args[2:])
        env['\0' + redirect] = 'Created job, ID: 42'
    elif redirect is not None:
        fail('redirection in %r' % line)
    elif words[1] == 'add':
        cmd_job_add(job, args[2:])
    elif args[2:] == ['/id:42']:
        job.submitted = True
    else:
        fail('job submit %r' % args[2:])


CMD_SKIP = re.compile(r'(?i)(@echo off|rem( .*)?|setlocal .*|chcp .*'
                      r'|for /f .*|if .*goto \w+|del .*|echo .*|type .*'
                      r'|goto \w+|:\w+|endlocal .*|)$')


def decode_cmd(data):
    if b'\n' in data.replace(b'\r\n', b''):
        fail('a line does not end in CRLF')
    text = data.decode('utf-8')
    lines = text.split('\r\n')
    chcp = [i for i, l in enumerate(lines) if l.startswith('chcp 65001')]
    if not chcp or not all(ord(c) < 128 for c in '\n'.join(
            lines[:chcp[0]])):
        fail('non-ASCII before chcp 65001, or no chcp 65001')
    if 'setlocal EnableExtensions DisableDelayedExpansion' not in lines:
        fail('delayed expansion is not turned off')
    job = Job()
    env = {'TEMP': 'C:\\Temp', 'RANDOM': '7'}
    for line in lines:
        if job.submitted:
            break
        if line.startswith(('set ', 'if %DDPGEN_D%', 'job ', 'for /f "use')):
            cmd_run(line, job, env)
        elif re.match(r'(?i)set\b', line):
            fail('unread set: %r' % line)
        elif not CMD_SKIP.match(line):
            fail('unread line: %r' % line)
    if not job.submitted:
        fail('no job submit')
    return job


# ---- PowerShell -------------------------------------------------------

PS_QUOTES = "'\u2018\u2019\u201a\u201b"


def ps_tokens(line):
    """Single-quoted strings (as ('s', value)) and the other words."""
    toks = []
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c in ' \t':
            i += 1
        elif c in PS_QUOTES:
            value = []
            i += 1
            while True:
                if i >= n:
                    fail('unterminated string in %r' % line)
                if line[i] in PS_QUOTES:
                    if i + 1 < n and line[i + 1] in PS_QUOTES:
                        value.append(line[i + 1])
                        i += 2
                        continue
                    i += 1
                    break
                value.append(line[i])
                i += 1
            toks.append(('s', ''.join(value)))
        elif c == '"':
            fail('double-quoted string in %r' % line)
        else:
            m = re.compile(r'@\{|@\(|[+=(),{}]|[^\s\'"(),+={}]+').match(
                line, i)
            toks.append(('w', m.group(0)))
            i = m.end()
    return toks


def ps_value(toks, line):
    """term (+ term)*: strings, [bool]::Parse(string), $true, $false."""
    out = []
    i = 0
    while True:
        if i < len(toks) and toks[i][0] == 's':
            out.append(toks[i][1])
            i += 1
        elif toks[i:i + 4] and toks[i] == ('w', '[bool]::Parse') and \
                toks[i + 1] == ('w', '(') and toks[i + 2][0] == 's' and \
                toks[i + 3] == ('w', ')'):
            v = toks[i + 2][1].lower()
            if v not in ('true', 'false'):
                fail('[bool]::Parse(%r)' % v)
            out.append(v)
            i += 4
        elif i < len(toks) and toks[i] in (('w', '$true'), ('w', '$false')):
            out.append(toks[i][1][1:])
            i += 1
        else:
            fail('not a value: %r' % line)
        if i == len(toks):
            return ''.join(out)
        if toks[i] != ('w', '+'):
            fail('expected + in %r' % line)
        i += 1


PS_JOB = {'Name': 'name', 'NumNodes': 'nodes', 'Exclusive': 'exclusive',
          'FailOnTaskFailure': 'fail_on_task_failure'}
PS_TASK = {'Name': 'name', 'NumNodes': 'nodes', 'Type': 'type',
           'Rerunnable': 'rerunnable', 'WorkDir': 'workdir',
           'Stdout': 'stdout', 'Stderr': 'stderr', 'CommandLine': 'command'}


class PsReader:
    def __init__(self):
        self.job = Job()
        self.block = None       # 'job', 'task', 'env'
        self.task = None
        self.created = False

    def assign(self, key, toks, line):
        if self.block == 'job':
            if key == 'JobEnv' and toks == [('w', '@(')]:
                self.block = 'env'
            elif key in PS_JOB:
                self.job.props[PS_JOB[key]] = ps_value(toks, line)
            else:
                fail('unknown New-HpcJob parameter %r' % key)
        elif key == 'Job' and toks == [('w', '$job')]:
            self.task['job'] = True
        elif key in PS_TASK:
            self.task[PS_TASK[key]] = ps_value(toks, line)
        else:
            fail('unknown Add-HpcTask parameter %r' % key)

    def statement(self, line):
        toks = ps_tokens(line)
        if self.block == 'env':
            if toks == [('w', ')')]:
                self.block = 'job'
                return
            name, sep, value = ps_value(toks, line).partition('=')
            if not sep:
                fail('JobEnv item without =: %r' % line)
            self.job.env.append((name, value))
        elif self.block is not None:
            if toks == [('w', '}')]:
                self.block = None
            elif len(toks) >= 3 and toks[1] == ('w', '='):
                self.assign(toks[0][1], toks[2:], line)
            else:
                fail('unread line in a parameter table: %r' % line)
        else:
            self.toplevel(toks, line)

    def toplevel(self, toks, line):
        words = [t[1] for t in toks]
        if words == ['$jobArgs', '=', '@{']:
            self.block = 'job'
        elif words == ['$taskArgs', '=', '@{']:
            if not self.created:
                fail('a task before New-HpcJob')
            self.block = 'task'
            self.task = {}
        elif len(toks) == 5 and toks[3][0] == 's' and \
                words[:3] + words[4:] == ['$jobArgs.NodeGroups', '=', '@(',
                                          ')']:
            self.job.props['node_group'] = toks[3][1]
        elif words[:2] == ['$jobArgs.RunTime', '=']:
            self.job.props['runtime'] = ps_value(toks[2:], line)
        elif words == ['$job', '=', 'New-HpcJob', '@jobArgs']:
            self.created = True
        elif words == ['Add-HpcTask', '@taskArgs', '|', 'Out-Null']:
            if not self.task.get('job'):
                fail('Add-HpcTask without -Job')
            self.job.tasks.append(self.task)
        elif words == ['Submit-HpcJob', '-Job', '$job', '|', 'Out-Null']:
            self.job.submitted = True


def decode_ps(data):
    if not data.startswith(b'\xef\xbb\xbf'):
        fail('no UTF-8 BOM: Windows PowerShell would read ANSI')
    text = data[3:].decode('utf-8')
    if "\n$ErrorActionPreference = 'Stop'\n" not in text:
        fail("no $ErrorActionPreference = 'Stop'")
    r = PsReader()
    for line in text.split('\n'):
        s = line.strip()
        if r.block is None and (s == '' or s.startswith('#') or
                                not s.startswith(('$job', '$task',
                                                  'Add-HpcTask',
                                                  'Submit-HpcJob'))):
            continue
        r.statement(line)
    if not r.job.submitted:
        fail('no Submit-HpcJob')
    return r.job


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ('cmd', 'ps'):
        sys.stderr.write('usage: hpcpack-decode.py cmd|ps FILE\n')
        return 2
    with open(sys.argv[2], 'rb') as f:
        data = f.read()
    try:
        job = decode_cmd(data) if sys.argv[1] == 'cmd' else decode_ps(data)
    except DecodeError as e:
        sys.stderr.write('hpcpack-decode.py: %s: %s\n' % (sys.argv[2], e))
        return 1
    sys.stdout.buffer.write(job.dump().encode('utf-8'))
    return 0


if __name__ == '__main__':
    sys.exit(main())
