# fish completion for ddpgen(1).  test/t-completion.sh checks the options
# here against the program's option table.

# The long options that take a value: the word after one is its value.
set -g __ddpgen_arg_opts site nodes gpus-per-node nproc-per-node time \
    partition account qos constraint job-name output env format setup port \
    rdzv launcher iface template ddprank show-site signal-lead container image \
    bind check hang-timeout
set -g __ddpgen_arg_short s N G n t p A q C J o f e S P r L i T

# True while ddpgen's options go on: no training script yet (it ends them).
function __ddpgen_options_open
    set -l tokens (commandline -opc)
    set -e tokens[1]
    while set -q tokens[1]
        set -l t $tokens[1]
        set -e tokens[1]
        switch $t
            case --
                return 1
            case '--*=*'
            case '--*'
                contains -- (string sub -s 3 -- $t) $__ddpgen_arg_opts
                and set -e tokens[1]
            case '-?'
                contains -- (string sub -s 2 -- $t) $__ddpgen_arg_short
                and set -e tokens[1]
            case '-*'
            case '*'
                return 1
        end
    end
    return 0
end

# The sites along the search path, with their descriptions.
function __ddpgen_sites
    set -l cmd (commandline -opc)[1]
    $cmd --list-sites 2>/dev/null |
        string replace -r '^(\S+)\s+(.*?)( \(/.*\))?$' '$1\t$2'
end

# The output formats of the scheduler of the site given so far.
function __ddpgen_formats
    set -l tokens (commandline -opc)
    set -l site slurm
    for i in (seq 2 (count $tokens))
        switch $tokens[$i]
            case -s --site
                set -q tokens[(math $i + 1)]
                and set site $tokens[(math $i + 1)]
            case '--site=*'
                set site (string replace -- --site= '' $tokens[$i])
            case '-s?*'
                set site (string sub -s 3 -- $tokens[$i])
        end
    end
    switch ($tokens[1] --show-site $site 2>/dev/null |
            string match -r '^scheduler = .*')
        case 'scheduler = "slurm"'
            echo sh
        case 'scheduler = "hpcpack"'
            printf '%s\n' xml cmd ps
        case 'scheduler = "flux"'
            echo flux
        case 'scheduler = "pbs"'
            echo pbs
        case 'scheduler = "lsf"'
            echo lsf
        case 'scheduler = "local"'
            echo local
        case '*'
            printf '%s\n' sh xml cmd ps flux pbs lsf local
    end
end

complete -c ddpgen -e
set -l open -n __ddpgen_options_open
complete -c ddpgen $open -s s -l site -r -a '(__ddpgen_sites)' -d 'Site profile'
complete -c ddpgen $open -s N -l nodes -x -d 'Number of nodes'
complete -c ddpgen $open -s G -l gpus-per-node -x -d 'GPUs per node'
complete -c ddpgen $open -s n -l nproc-per-node -x -d 'Processes per node'
complete -c ddpgen $open -s t -l time -x -d 'Time limit'
complete -c ddpgen $open -s p -l partition -x -d Partition
complete -c ddpgen $open -s A -l account -x -d Account
complete -c ddpgen $open -s q -l qos -x -d 'Quality of service'
complete -c ddpgen $open -s C -l constraint -x -d 'Node constraint'
complete -c ddpgen $open -s J -l job-name -x -d 'Job name'
complete -c ddpgen $open -s o -l output -r -d 'Write the job to a file'
complete -c ddpgen $open -s f -l format -x -a '(__ddpgen_formats)' -d 'Output format'
complete -c ddpgen $open -s e -l env -x -d 'Export NAME=VALUE in the job'
complete -c ddpgen $open -s S -l setup -x -d 'Setup line'
complete -c ddpgen $open -s P -l port -x -a auto -d 'Master port'
complete -c ddpgen $open -s r -l rdzv -x -a 'static c10d' -d Rendezvous
complete -c ddpgen $open -s L -l launcher -x -a 'torchrun srun deepspeed accelerate' -d Launcher
complete -c ddpgen $open -s i -l iface -x -d 'Interface pattern (PCRE2)'
complete -c ddpgen $open -s T -l template -r -d 'Template file'
complete -c ddpgen $open -l ddprank -r -d 'Path of ddprank on the nodes'
complete -c ddpgen $open -l preflight -d 'Run ddprank doctor before training'
complete -c ddpgen $open -l no-preflight -d 'Do not run ddprank doctor first'
complete -c ddpgen $open -l requeue -d 'Requeue at the time limit and on preemption'
complete -c ddpgen $open -l no-requeue -d 'Do not requeue'
complete -c ddpgen $open -l signal-lead -x -d 'Seconds of warning before the limit'
complete -c ddpgen $open -l container -x -a 'none shifter podman-hpc apptainer pyxis charliecloud' -d 'Container runtime'
complete -c ddpgen $open -l image -r -d 'Container image'
complete -c ddpgen $open -l bind -x -a 'none numa gpu' -d 'Where each worker runs'
complete -c ddpgen $open -l local -d 'Run the site'"'"'s job on this machine'
complete -c ddpgen $open -l check -r -d 'Check a generated job before it is queued'
complete -c ddpgen $open -l list-sites -d 'List the sites found'
complete -c ddpgen $open -l hang-timeout -x -d 'Seconds a rank may go without a heartbeat'
complete -c ddpgen $open -l list-bad-nodes -d 'List the nodes remembered as bad'
complete -c ddpgen $open -l forget-bad-nodes -d 'Forget the nodes remembered as bad'
complete -c ddpgen $open -l show-site -x -a '(__ddpgen_sites)' -d 'Print a resolved profile'
complete -c ddpgen $open -s h -l help -d Usage
complete -c ddpgen $open -s V -l version -d Version
