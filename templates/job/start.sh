{{! start.sh: what the job does first, after set -euo pipefail; nothing by
    default }}
