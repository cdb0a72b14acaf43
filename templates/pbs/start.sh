{{! start.sh: the submitting directory }}

# PBS starts this script in the home directory: the training's relative
# paths are the submitting directory's, as qsub recorded it.
cd "${PBS_O_WORKDIR:-.}"
