# Names vulture (the dead-code finder run by .ci/run, configured in pyproject.toml's [tool.vulture])
# cannot see used: each is reached by a string, a framework, a protocol or a reader outside the
# package. tests/test_dead_code.py checks that every command and renderer named by a string is here.
# ruff: noqa
_ = object()

# click commands, imported by name from skillsift/commands/group.py's COMMANDS
_.search
_.eval_command
_.index_command
_.status_command
_.validate_command
_.explain_command
_.list_command
_.mine_command
_.mcp_command
_.hook_command
_.ci_command
_.tune_command
_.init_command
_.sources_command
_.judge_command
_.update_command  # its subcommands, registered by click's decorators
_.fetch_command
# click.Group's methods, called by click
_.list_commands
_.get_command
_.format_commands

# renderers, named "module:function" in skillsift/render/registry.py
_.render_text
_.render_json
_.render_github
_.render_sarif
_.render_junit
_.render_markdown
_.render_html
_.render_with_why_text
_.render_with_why_json
_.render_search_text
_.render_search_json
_.render_listing_text
_.render_listing_json
_.render_index_text
_.render_index_json
_.render_status_text
_.render_status_json
_.render_tune_text
_.render_tune_json
_.render_ci_json
_.render_judge_json
_.render_judge_text

# module __getattr__ (PEP 562): the lazy names of skillsift, skillsift.cli and skillsift.index
_.__getattr__

# protocols and frameworks that call by name
_.Provider  # embed/base.py: the typing.Protocol every embedding provider meets (tests check isinstance)
_.http_open  # embed/openai.py: urllib handler methods
_.https_open
_.redirect_request
_.fp  # their arguments, named as urllib passes them
_.newurl
_.indentless  # evaluate/cases_yaml.py: PyYAML Emitter.increase_indent's argument
_.exc_info  # index/lock.py: __exit__(*exc_info)
_.intra_op_num_threads  # embed/local.py: onnxruntime SessionOptions set by attribute
_.inter_op_num_threads
_.execution_mode
_.log_severity_level
_.log_errors  # secrets/scan.py: re2 Options set by attribute
_.encoding
_.never_capture

# data read whole (dataclass fields written out or compared), and counters read by tests
_.toplevel  # ci/gitbase.py RepoPlace
_.pass_filenames  # hooks/specs.py: written to .pre-commit-hooks.yaml
_.require_serial
_.always_run
_.types_or
_.reloads  # mcpserver/service.py: how many times the ranker was re-created
_.sent_texts  # embed/gate.py: what a run sent and took from the response cache
_.cache_hits
_.clear_cache  # embed/local.py: forget the loaded model (bench/bench_vector.py measures a fresh load)
_.TOKENIZER_SHA256  # embed/local.py: the shipped tokenizer's pin (tests/embed check the file against it)
_.TOP_KEYS  # casefile/rules.py: the top-level keys of a cases file (re-exported)
_.INTERNAL_ERROR  # mcpserver/protocol.py: JSON-RPC's reserved code, kept with its siblings
_.LINK  # checks/served.py: the code SK020, with its siblings
_.GATE_TABLE  # config/ranking.py: the key-by-key classification of the config (tests/config/test_ranking_keys.py)
_.NOT_RANKING

# the writers of checked-in generated files, run by `python -m tests.generated --write` (tests check they are fresh)
_.REPORTS  # hooks/specs.py
_.hooks_yaml
_.HOOK_CODES  # validators/declared.py
_.HOOKS_YAML
_.hook_codes_source

# ranker: the specification's fusions over complete lists, which only the differential tests call
_.blend  # ranker/model/fusion.py
_.zscore

# ranker: being moved to tests/
_.without  # ranker/known.py
_.pruned_top  # ranker/lexical.py
_._usable_where  # ranker/vector_ranking.py
_._whole
_._small
# skillsift/records.py: what dataclasses.replace / fields / asdict and match statements read on a record
_._field_type
_.__dataclass_fields__
_.__match_args__
