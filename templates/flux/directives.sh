{{! directives.sh: the #flux: lines, split by flux batch as shell words (RFC
    36), which quote_sh's words survive; profile values on them hold no
    control character }}
#flux: --job-name={{job_name}}
#flux: -N {{nodes}}
{{?exclusive}}
#flux: --exclusive
{{/exclusive}}
{{?time}}
#flux: -t {{time}}
{{/time}}
{{?partition}}
#flux: -q {{partition}}
{{/partition}}
{{?account}}
#flux: -B {{account}}
{{/account}}
{{?constraint}}
#flux: --requires={{constraint}}
{{/constraint}}
{{?flux_exclude}}
#flux: --requires={{flux_exclude}}
{{/flux_exclude}}
{{?output}}
#flux: --output={{output}}
{{/output}}
{{?requeue}}
#flux: --signal={{checkpoint_signal}}@{{signal_lead}}s
#flux: -o output.mode=append
{{/requeue}}
