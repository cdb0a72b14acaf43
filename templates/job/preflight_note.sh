{{! preflight_note.sh: the comment above the preflight }}
# Preflight (profile key preflight): ddprank doctor on every node, one
# task each, checks the interface, names, port, launcher, GPUs and
# variables before any training process starts. Node 0 prints the
# report; a failed check ends the job here (set -e), naming the nodes.
# After the secret: the port it checks derives from it.
