# fish completion for ddprank(1).  test/t-completion.sh checks the
# options here against the program's option table.

set -g __ddprank_cmds bind doctor env exec hosts ip key port verdict

# __ddprank_cmd CMD...: true when the subcommand is one of CMD (env when
# none is given) and the command of exec has not started.
function __ddprank_cmd
    set -l tokens (commandline -opc)
    set -l cmd env
    if set -q tokens[2]; and contains -- $tokens[2] $__ddprank_cmds
        set cmd $tokens[2]
    end
    contains -- -- $tokens
    and return 1
    contains -- $cmd $argv
end

# True after `ddprank exec ... --` or `bind ... --`: the command and its
# arguments.
function __ddprank_exec_command
    set -l tokens (commandline -opc)
    contains -- "$tokens[2]" exec bind
    and contains -- -- $tokens
end

# The command after `exec ... --`, completed as if typed on its own.
function __ddprank_exec_complete
    set -l tokens (commandline -opc) (commandline -ct)
    set -l i (contains -i -- -- $tokens)
    __fish_complete_subcommand --commandline $tokens[(math $i + 1)..-1]
end

complete -c ddprank -e
complete -c ddprank -f -n 'test (count (commandline -opc)) -eq 1' -a bind -d 'Print the binding plan, or bind a worker and run it'
complete -c ddprank -f -n 'test (count (commandline -opc)) -eq 1' -a doctor -d 'Check every node before training (the preflight)'
complete -c ddprank -f -n 'test (count (commandline -opc)) -eq 1' -a env -d 'Print NODE_RANK, NNODES, MASTER_ADDR ... (the default)'
complete -c ddprank -f -n 'test (count (commandline -opc)) -eq 1' -a exec -d 'Run a command with those variables set'
complete -c ddprank -f -n 'test (count (commandline -opc)) -eq 1' -a hosts -d 'Expand a host list'
complete -c ddprank -f -n 'test (count (commandline -opc)) -eq 1' -a ip -d 'Print the address of an interface'
complete -c ddprank -f -n 'test (count (commandline -opc)) -eq 1' -a key -d 'Make the key file ~/.ddprank/key'
complete -c ddprank -f -n 'test (count (commandline -opc)) -eq 1' -a port -d 'Print the port'
complete -c ddprank -f -n 'test (count (commandline -opc)) -eq 1' -a verdict -d 'Judge a stall or a failed preflight after a step'
complete -c ddprank -n '__ddprank_cmd doctor env exec hosts verdict' -s s -l scheduler -x -a 'auto slurm hpcpack flux pbs lsf local hostfile' -d 'Where the node list comes from'
complete -c ddprank -n '__ddprank_cmd doctor env exec hosts verdict' -s f -l hostfile -r -d 'Host file'
complete -c ddprank -n '__ddprank_cmd doctor env exec ip' -s i -l iface -x -d 'Interface pattern (PCRE2)'
complete -c ddprank -n '__ddprank_cmd doctor env exec' -s C -l comm-iface -x -d 'Gloo and NCCL interface pattern (PCRE2)'
complete -c ddprank -n '__ddprank_cmd doctor env exec port' -s p -l port -x -a auto -d 'Master port'
complete -c ddprank -n '__ddprank_cmd doctor env exec port' -s P -l port-range -x -d 'Port range LO-HI'
complete -c ddprank -n '__ddprank_cmd doctor env exec' -s r -l rdzv -x -a 'static c10d' -d Rendezvous
complete -c ddprank -n '__ddprank_cmd env' -s F -l format -x -a 'sh json' -d 'Output format'
complete -c ddprank -n '__ddprank_cmd doctor' -s F -l format -x -a 'text json' -d 'Report format'
complete -c ddprank -n '__ddprank_cmd env exec' -s x -l exchange -x -a 'dir: mpi' -d 'Address exchange'
complete -c ddprank -n '__ddprank_cmd doctor' -s x -l exchange -x -a 'dir:' -d 'Shared directory (HPC Pack)'
complete -c ddprank -n '__ddprank_cmd doctor env exec' -s T -l exchange-timeout -x -d 'Exchange timeout in seconds'
complete -c ddprank -n '__ddprank_cmd doctor env exec' -s N -l nnodes -x -d 'Node count'
complete -c ddprank -n '__ddprank_cmd doctor ip' -s 4 -d 'IPv4 address'
complete -c ddprank -n '__ddprank_cmd doctor ip' -s 6 -d 'IPv6 address'
complete -c ddprank -n '__ddprank_cmd ip' -l first-node -d 'Fail unless this host is node 0'
complete -c ddprank -n '__ddprank_cmd doctor' -s L -l launcher -x -a '(__fish_complete_command)' -d 'Launcher to look for'
complete -c ddprank -n '__ddprank_cmd exec' -s L -l launcher -x -a 'torchrun srun deepspeed accelerate' -d Launcher
complete -c ddprank -n '__ddprank_cmd exec' -s n -l nproc-per-node -x -d 'Processes per node'
complete -c ddprank -n '__ddprank_cmd exec' -l launcher-at -x -d 'Words of a container runtime before the launcher'
complete -c ddprank -n '__ddprank_cmd doctor' -s D -l deep -d 'Also import torch'
complete -c ddprank -n '__ddprank_cmd doctor' -s G -l gpus -x -d 'GPUs per node'
complete -c ddprank -n '__ddprank_cmd doctor' -s W -l wait -x -d 'Seconds node 0 waits'
complete -c ddprank -n '__ddprank_cmd bind doctor exec' -l bind -x -a 'none numa gpu' -d 'Binding policy'
complete -c ddprank -n '__ddprank_cmd bind doctor exec' -l bind-reserve -x -d 'CPUs the site reserves'
complete -c ddprank -n '__ddprank_cmd exec' -l bind-nic-var -x -d 'Variable that gets the rank\'s NIC'
complete -c ddprank -n '__ddprank_cmd bind doctor' -l topology -r -d 'hwloc XML topology'
complete -c ddprank -n '__ddprank_cmd bind doctor' -s n -l nproc-per-node -x -d 'Local ranks'
complete -c ddprank -n '__ddprank_cmd bind' -l explain -d 'Print the plan for this node'
complete -c ddprank -n '__ddprank_cmd bind' -l python -d 'Run the launcher\'s python on the command'
complete -c ddprank -n '__ddprank_cmd bind' -l local-rank-arg -d 'Put --local_rank=N after the script'
complete -c ddprank -n '__ddprank_cmd bind doctor env exec hosts ip key port verdict' -s h -l help -d Usage
complete -c ddprank -n '__ddprank_cmd bind doctor env exec hosts ip key port verdict' -s V -l version -d Version
complete -c ddprank -n __ddprank_exec_command -x -a '(__ddprank_exec_complete)'
complete -c ddprank -n '__ddprank_cmd exec' -l hang-timeout -x -d 'Seconds a rank may go without a heartbeat'
complete -c ddprank -n '__ddprank_cmd doctor exec verdict' -l hang-dir -x -a '(__fish_complete_directories)' -d 'Directory of the job directories'
complete -c ddprank -n '__ddprank_cmd doctor' -l record -d 'Record the nodes it blames for ddprank verdict'
complete -c ddprank -n '__ddprank_cmd verdict' -l site -x -d 'Whose bad nodes'
complete -c ddprank -n '__ddprank_cmd verdict' -l remember -x -d 'Seconds the bad nodes are remembered'
