"""llama.cpp's options that are not about sampling, and how many values each takes.

Derived from ``common/arg.cpp`` of the llama.cpp that llama-cpp-python 0.3.36
vendors: every ``common_arg`` that is not ``set_sampling()`` and belongs to
llama-cli, llama-completion, llama-server or all programs.  One with a value
hint takes one value, one without takes none, ``--control-vector-layer-range``
takes two; plus a few options older llama.cpp versions had (``--mlock``,
``--no-mmap`` ...).  Options whose value is on/off/auto (``-fa``, ``--color``
...) take that value only when the next word is one: older llama.cpp had them
as bare switches.  Import skips these options with their values; it never guesses.
"""
from __future__ import annotations

_ARG_CPP_NO_VALUE = """
--agent --cache-idle-slots --cache-list --cache-prompt --check-tensors --completion-bash --cont-batching
--context-shift --conversation --cors-credentials --cpu-moe --cpu-moe-draft --display-prompt
--embd-gemma-default --embedding --embeddings --escape --fim-qwen-1.5b-default --fim-qwen-14b-spec
--fim-qwen-30b-default --fim-qwen-3b-default --fim-qwen-7b-default --fim-qwen-7b-spec
--gpt-oss-120b-default --gpt-oss-20b-default --help --in-prefix-bos --interactive --interactive-first
--jinja --kv-offload --kv-unified --list-devices --log-disable --log-jsonl --log-prefix --log-timestamps
--log-verbose --lora-init-without-apply --metrics --mmproj-auto --mmproj-offload --models-autoload
--multiline-input --no-agent --no-cache-idle-slots --no-cache-prompt --no-cont-batching
--no-context-shift --no-conversation --no-cors-credentials --no-display-prompt --no-escape --no-host
--no-jinja --no-kv-offload --no-kv-unified --no-log-jsonl --no-log-prefix --no-log-timestamps
--no-mmproj --no-mmproj-auto --no-mmproj-offload --no-models-autoload --no-op-offload --no-perf
--no-prefill-assistant --no-reasoning-preserve --no-repack --no-show-timings --no-skip-chat-parsing
--no-slots --no-spec-draft-backend-sampling --no-ui --no-ui-mcp-proxy --no-warmup --no-webui
--no-webui-mcp-proxy --offline --op-offload --perf --prefill-assistant --prompt-cache-all
--prompt-cache-ro --props --reasoning-preserve --repack --rerank --reranking --reuse-port --show-timings
--simple-io --single-turn --skip-chat-parsing --slots --spec-default --spec-draft-backend-sampling
--spec-draft-cpu-moe --special --spm-infill --swa-full --ui --ui-mcp-proxy --usage --verbose
--verbose-prompt --version --vision-gemma-12b-default --vision-gemma-4b-default --warmup --webui
--webui-mcp-proxy -ag -cb -cl -cmoe -cmoed -cnv -e -h -i -if -kvo -kvu -mli -nkvo -no-ag -no-cnv -no-kvu
-nocb -nr -sp -st -v
"""

_ARG_CPP_ONE_VALUE = """
--alias --api-key --api-key-file --api-prefix --audio --batch-size --binary-file --cache-ram
--cache-reuse --cache-type-k --cache-type-k-draft --cache-type-v --cache-type-v-draft --chat-template
--chat-template-file --chat-template-kwargs --checkpoint-min-step --control-vector
--control-vector-scaled --cors-headers --cors-methods --cors-origins --cpu-mask --cpu-mask-batch
--cpu-mask-batch-draft --cpu-mask-draft --cpu-range --cpu-range-batch --cpu-range-draft --cpu-strict
--cpu-strict-batch --cpu-strict-batch-draft --cpu-strict-draft --ctx-checkpoints --ctx-size
--defrag-thold --device --device-draft --docker-repo --draft --draft-max --draft-min --draft-n
--draft-n-min --draft-p-min --draft-p-split --embd-normalize --file --fit-ctx --fit-target --gpu-layers
--gpu-layers-draft --grp-attn-n --grp-attn-w --hf-file --hf-repo --hf-repo-draft --hf-token --host
--image --image-max-tokens --image-min-tokens --in-prefix --in-suffix --keep --kv-unified-per-slot
--lazy-mode --load-mode --log-file --log-prompts-dir --log-verbosity --lookup-cache-dynamic
--lookup-cache-static --lora --lora-scaled --main-gpu --mcp-servers-config --mcp-servers-json
--media-path --mmproj --mmproj-device --mmproj-url --model --model-draft --model-url --models-dir
--models-max --models-preset --mtmd-batch-max-tokens --n-cpu-ffn --n-cpu-moe --n-cpu-moe-draft
--n-gpu-layers --n-gpu-layers-draft --n-predict --numa --output --output-file --override-kv
--override-tensor --override-tensor-draft --parallel --path --poll --poll-batch --poll-batch-draft
--poll-draft --pooling --port --predict --print-token-count --prio --prio-batch --prio-batch-draft
--prio-draft --prompt --prompt-cache --reasoning-budget --reasoning-budget-message --reasoning-effort
--reasoning-format --reverse-prompt --rope-freq-base --rope-freq-scale --rope-scale --rope-scaling --rpc
--server-base --sleep-idle-seconds --slot-prompt-similarity --slot-save-path --spec-draft-cpu-mask
--spec-draft-cpu-mask-batch --spec-draft-cpu-range --spec-draft-cpu-strict --spec-draft-cpu-strict-batch
--spec-draft-device --spec-draft-hf --spec-draft-model --spec-draft-n-cpu-moe --spec-draft-n-max
--spec-draft-n-min --spec-draft-ncmoe --spec-draft-ngl --spec-draft-override-tensor --spec-draft-p-min
--spec-draft-p-split --spec-draft-poll --spec-draft-poll-batch --spec-draft-prio --spec-draft-prio-batch
--spec-draft-threads --spec-draft-threads-batch --spec-draft-type-k --spec-draft-type-v
--spec-ngram-map-k-min-hits --spec-ngram-map-k-size-m --spec-ngram-map-k-size-n
--spec-ngram-map-k4v-min-hits --spec-ngram-map-k4v-size-m --spec-ngram-map-k4v-size-n
--spec-ngram-min-hits --spec-ngram-mod-n-match --spec-ngram-mod-n-max --spec-ngram-mod-n-min
--spec-ngram-simple-min-hits --spec-ngram-simple-size-m --spec-ngram-simple-size-n --spec-ngram-size-m
--spec-ngram-size-n --spec-synth-len --spec-synth-rates --spec-type --split-mode --sse-ping-interval
--ssl-cert-file --ssl-key-file --swa-checkpoints --system-prompt --system-prompt-file --tags
--tensor-split --threads --threads-batch --threads-batch-draft --threads-draft --threads-http --timeout
--tools --tools-runtime --ubatch-size --ui-config --ui-config-file --verbosity --video
--video-ffmpeg-dir --video-fps --video-timestamp-interval --webui-config --webui-config-file
--yarn-attn-factor --yarn-beta-fast --yarn-beta-slow --yarn-ext-factor --yarn-orig-ctx -C -Cb -Cbd -Cd
-Cr -Crb -Crd -a -b -bf -c -cms -cram -ctk -ctkd -ctv -ctvd -ctxcp -dev -devd -dr -dt -f -fitc -fitt
-gan -gaw -hf -hfd -hff -hfr -hfrd -hft -lcd -lcs -lm -lv -lzm -m -md -mg -mm -mmdev -mmu -mu -n -ncffn
-ncmoe -ncmoed -ngl -ngld -np -o -ot -otd -p -ptc -r -sm -sps -sys -sysf -t -tb -tbd -td -to -ts -ub
"""

_ARG_CPP_TWO_VALUES = """
--control-vector-layer-range
"""

_ARG_CPP_CHOICE = {
    '--color': ('on', 'off', 'auto'),
    '--fit': ('on', 'off'),
    '--flash-attn': ('on', 'off', 'auto'),
    '--log-colors': ('on', 'off', 'auto'),
    '--reasoning': ('on', 'off', 'auto'),
    '-co': ('on', 'off', 'auto'),
    '-fa': ('on', 'off', 'auto'),
    '-fit': ('on', 'off'),
    '-rea': ('on', 'off', 'auto'),
}

_LEGACY_NO_VALUE = """
--mlock --no-mmap --mmap -ins --instruct -dkvc --dump-kv-cache --log-enable
"""

#: Values llama.cpp's ``is_truthy`` / ``is_falsey`` / ``is_autoy`` accept.
SWITCH_VALUES = frozenset({"on", "off", "auto", "enabled", "disabled", "true", "false", "1", "0", "-1"})

#: Non-sampling option -> number of values (an int), or ``"choice"`` for an
#: on/off/auto option whose value is optional here.
NON_SAMPLING_OPTIONS: dict[str, int | str] = {
    **{name: 0 for name in (_ARG_CPP_NO_VALUE + _LEGACY_NO_VALUE).split()},
    **{name: 1 for name in _ARG_CPP_ONE_VALUE.split()},
    **{name: 2 for name in _ARG_CPP_TWO_VALUES.split()},
    **{name: "choice" for name in _ARG_CPP_CHOICE},
}
ESCAPE_ON = ("-e", "--escape")
ESCAPE_OFF = ("--no-escape",)
BREAKER = "--dry-sequence-breaker"
