"""The ``__init__`` of each record class of skillsift, compiled with the package (:mod:`skillsift.records`).

Generated from the record classes by ``python -m tests.generated --write``; do not edit.
Longer than 450 lines because it is generated: one factory per record class.
"""

# ruff: noqa

def _0(__MISSING, __setattr):
    def __init__(self,agent,context_window,budget_chars,used_chars,needed_chars,entries):
      __setattr(self,'agent',agent)
      __setattr(self,'context_window',context_window)
      __setattr(self,'budget_chars',budget_chars)
      __setattr(self,'used_chars',used_chars)
      __setattr(self,'needed_chars',needed_chars)
      __setattr(self,'entries',entries)
    return __init__


def _1(__MISSING, __setattr, __default_cases, __default_cases_configured, __default_min_spec, __default_baseline, __default_max_flips, __default_max_rank_drops, __default_mode, __default_k, __default_secrets_baseline, __default_near_duplicate_threshold, __default_near_duplicate_cosine, __default_ignore, __default_fail_on_gate_change, __default_preset, __default_judge_max_flips, __factory_minimums, __factory_description_limits, __factory_severity, __factory_agents):
    def __init__(self,cases=__default_cases,cases_configured=__default_cases_configured,minimums=__MISSING,min_spec=__default_min_spec,baseline=__default_baseline,max_flips=__default_max_flips,max_rank_drops=__default_max_rank_drops,mode=__default_mode,k=__default_k,secrets_baseline=__default_secrets_baseline,near_duplicate_threshold=__default_near_duplicate_threshold,near_duplicate_cosine=__default_near_duplicate_cosine,description_limits=__MISSING,severity=__MISSING,ignore=__default_ignore,agents=__MISSING,fail_on_gate_change=__default_fail_on_gate_change,preset=__default_preset,judge_max_flips=__default_judge_max_flips):
      __setattr(self,'cases',cases)
      __setattr(self,'cases_configured',cases_configured)
      __setattr(self,'minimums',__factory_minimums() if minimums is __MISSING else minimums)
      __setattr(self,'min_spec',min_spec)
      __setattr(self,'baseline',baseline)
      __setattr(self,'max_flips',max_flips)
      __setattr(self,'max_rank_drops',max_rank_drops)
      __setattr(self,'mode',mode)
      __setattr(self,'k',k)
      __setattr(self,'secrets_baseline',secrets_baseline)
      __setattr(self,'near_duplicate_threshold',near_duplicate_threshold)
      __setattr(self,'near_duplicate_cosine',near_duplicate_cosine)
      __setattr(self,'description_limits',__factory_description_limits() if description_limits is __MISSING else description_limits)
      __setattr(self,'severity',__factory_severity() if severity is __MISSING else severity)
      __setattr(self,'ignore',ignore)
      __setattr(self,'agents',__factory_agents() if agents is __MISSING else agents)
      __setattr(self,'fail_on_gate_change',fail_on_gate_change)
      __setattr(self,'preset',preset)
      __setattr(self,'judge_max_flips',judge_max_flips)
    return __init__


def _2(__MISSING, __setattr, __default_preset, __default_details):
    def __init__(self,code,name,severity,scope,module,triggers,files,summary,preset=__default_preset,details=__default_details):
      __setattr(self,'code',code)
      __setattr(self,'name',name)
      __setattr(self,'severity',severity)
      __setattr(self,'scope',scope)
      __setattr(self,'module',module)
      __setattr(self,'triggers',triggers)
      __setattr(self,'files',files)
      __setattr(self,'summary',summary)
      __setattr(self,'preset',preset)
      __setattr(self,'details',details)
    return __init__


def _3(__MISSING, __setattr, __default_command, __default_named_command, __default_pass_env, __default_agent, __default_timeout_seconds, __default_cache, __default_fetch_in_ci, __default_max_calls):
    def __init__(self,command=__default_command,named_command=__default_named_command,pass_env=__default_pass_env,agent=__default_agent,timeout_seconds=__default_timeout_seconds,cache=__default_cache,fetch_in_ci=__default_fetch_in_ci,max_calls=__default_max_calls):
      __setattr(self,'command',command)
      __setattr(self,'named_command',named_command)
      __setattr(self,'pass_env',pass_env)
      __setattr(self,'agent',agent)
      __setattr(self,'timeout_seconds',timeout_seconds)
      __setattr(self,'cache',cache)
      __setattr(self,'fetch_in_ci',fetch_in_ci)
      __setattr(self,'max_calls',max_calls)
    return __init__


def _4(__MISSING, __setattr, __default_messages):
    def __init__(self,config,view,messages=__default_messages):
      __setattr(self,'config',config)
      __setattr(self,'view',view)
      __setattr(self,'messages',messages)
    return __init__


def _5(__MISSING, __setattr, __default_choices, __default_pattern, __default_requires):
    def __init__(self,field,kind,choices=__default_choices,pattern=__default_pattern,requires=__default_requires):
      __setattr(self,'field',field)
      __setattr(self,'kind',kind)
      __setattr(self,'choices',choices)
      __setattr(self,'pattern',pattern)
      __setattr(self,'requires',requires)
    return __init__


def _6(__MISSING, __setattr):
    def __init__(self,file,line,codes,reason):
      __setattr(self,'file',file)
      __setattr(self,'line',line)
      __setattr(self,'codes',codes)
      __setattr(self,'reason',reason)
    return __init__


def _7(__MISSING, __setattr, __default_file, __default_line, __default_column, __default_code, __default_message, __default_severity, __default_hint, __default_rule):
    def __init__(self,file=__default_file,line=__default_line,column=__default_column,code=__default_code,message=__default_message,severity=__default_severity,hint=__default_hint,rule=__default_rule):
      __setattr(self,'file',file)
      __setattr(self,'line',line)
      __setattr(self,'column',column)
      __setattr(self,'code',code)
      __setattr(self,'message',message)
      __setattr(self,'severity',severity)
      __setattr(self,'hint',hint)
      __setattr(self,'rule',rule)
    return __init__


def _8(__MISSING, __setattr):
    def __init__(self,hits,blocks_scored,postings_scored,n_blocks):
      __setattr(self,'hits',hits)
      __setattr(self,'blocks_scored',blocks_scored)
      __setattr(self,'postings_scored',postings_scored)
      __setattr(self,'n_blocks',n_blocks)
    return __init__


def _9(__MISSING, __setattr, __default_doc, __default_keys, __default_values, __default_items, __default_options, __default_choices, __default_empty_ok, __default_low, __default_high, __default_between, __default_finite, __default_nonblank, __default_nullable, __default_schema_null, __default_one_or_list, __default_required, __default_min_items, __default_max_items, __default_entries, __default_unknown, __default_strict, __default_same_label, __default_default, __default_check, __default_key_names, __default_label, __factory_messages, __factory_schema):
    def __init__(self,kind,doc=__default_doc,keys=__default_keys,values=__default_values,items=__default_items,options=__default_options,choices=__default_choices,empty_ok=__default_empty_ok,low=__default_low,high=__default_high,between=__default_between,finite=__default_finite,nonblank=__default_nonblank,nullable=__default_nullable,schema_null=__default_schema_null,one_or_list=__default_one_or_list,required=__default_required,min_items=__default_min_items,max_items=__default_max_items,entries=__default_entries,unknown=__default_unknown,strict=__default_strict,same_label=__default_same_label,default=__default_default,check=__default_check,key_names=__default_key_names,label=__default_label,messages=__MISSING,schema=__MISSING):
      __setattr(self,'kind',kind)
      __setattr(self,'doc',doc)
      __setattr(self,'keys',keys)
      __setattr(self,'values',values)
      __setattr(self,'items',items)
      __setattr(self,'options',options)
      __setattr(self,'choices',choices)
      __setattr(self,'empty_ok',empty_ok)
      __setattr(self,'low',low)
      __setattr(self,'high',high)
      __setattr(self,'between',between)
      __setattr(self,'finite',finite)
      __setattr(self,'nonblank',nonblank)
      __setattr(self,'nullable',nullable)
      __setattr(self,'schema_null',schema_null)
      __setattr(self,'one_or_list',one_or_list)
      __setattr(self,'required',required)
      __setattr(self,'min_items',min_items)
      __setattr(self,'max_items',max_items)
      __setattr(self,'entries',entries)
      __setattr(self,'unknown',unknown)
      __setattr(self,'strict',strict)
      __setattr(self,'same_label',same_label)
      __setattr(self,'default',default)
      __setattr(self,'check',check)
      __setattr(self,'key_names',key_names)
      __setattr(self,'label',label)
      __setattr(self,'messages',__factory_messages() if messages is __MISSING else messages)
      __setattr(self,'schema',__factory_schema() if schema is __MISSING else schema)
    return __init__


def _10(__MISSING, __setattr, __default_allowed):
    def __init__(self,kind,label,line,column,masked,allowed=__default_allowed):
      __setattr(self,'kind',kind)
      __setattr(self,'label',label)
      __setattr(self,'line',line)
      __setattr(self,'column',column)
      __setattr(self,'masked',masked)
      __setattr(self,'allowed',allowed)
    return __init__


def _11(__MISSING, __setattr, __default_check, __default_help, __default_folded, __default_elidable, __default_prefilter):
    def __init__(self,kind,label,regex,needles,check=__default_check,help=__default_help,folded=__default_folded,elidable=__default_elidable,prefilter=__default_prefilter):
      __setattr(self,'kind',kind)
      __setattr(self,'label',label)
      __setattr(self,'regex',regex)
      __setattr(self,'needles',needles)
      __setattr(self,'check',check)
      __setattr(self,'help',help)
      __setattr(self,'folded',folded)
      __setattr(self,'elidable',elidable)
      __setattr(self,'prefilter',prefilter)
    return __init__


def _12(__MISSING, __setattr, __default_mode, __default_fields, __default_index_body, __default_body_chars, __default_fusion, __default_rrf_k, __default_weight_lexical, __default_weight_vector, __default_vector_min_sim, __default_candidates, __default_query_timeout_ms, __default_batch_size, __default_index_dir, __default_dtype, __default_log_queries, __default_long_query, __default_long_query_words, __default_examples, __default_example_weight, __default_mnz_bonus, __default_mnz_depth, __default_request_lexical_weight):
    def __init__(self,mode=__default_mode,fields=__default_fields,index_body=__default_index_body,body_chars=__default_body_chars,fusion=__default_fusion,rrf_k=__default_rrf_k,weight_lexical=__default_weight_lexical,weight_vector=__default_weight_vector,vector_min_sim=__default_vector_min_sim,candidates=__default_candidates,query_timeout_ms=__default_query_timeout_ms,batch_size=__default_batch_size,index_dir=__default_index_dir,dtype=__default_dtype,log_queries=__default_log_queries,long_query=__default_long_query,long_query_words=__default_long_query_words,examples=__default_examples,example_weight=__default_example_weight,mnz_bonus=__default_mnz_bonus,mnz_depth=__default_mnz_depth,request_lexical_weight=__default_request_lexical_weight):
      __setattr(self,'mode',mode)
      __setattr(self,'fields',fields)
      __setattr(self,'index_body',index_body)
      __setattr(self,'body_chars',body_chars)
      __setattr(self,'fusion',fusion)
      __setattr(self,'rrf_k',rrf_k)
      __setattr(self,'weight_lexical',weight_lexical)
      __setattr(self,'weight_vector',weight_vector)
      __setattr(self,'vector_min_sim',vector_min_sim)
      __setattr(self,'candidates',candidates)
      __setattr(self,'query_timeout_ms',query_timeout_ms)
      __setattr(self,'batch_size',batch_size)
      __setattr(self,'index_dir',index_dir)
      __setattr(self,'dtype',dtype)
      __setattr(self,'log_queries',log_queries)
      __setattr(self,'long_query',long_query)
      __setattr(self,'long_query_words',long_query_words)
      __setattr(self,'examples',examples)
      __setattr(self,'example_weight',example_weight)
      __setattr(self,'mnz_bonus',mnz_bonus)
      __setattr(self,'mnz_depth',mnz_depth)
      __setattr(self,'request_lexical_weight',request_lexical_weight)
    return __init__


def _13(__MISSING, __setattr, __default_skills, __default_agent, __default_listing):
    def __init__(self,name,catalog,full,skills=__default_skills,agent=__default_agent,listing=__default_listing):
      __setattr(self,'name',name)
      __setattr(self,'catalog',catalog)
      __setattr(self,'full',full)
      __setattr(self,'skills',skills)
      __setattr(self,'agent',agent)
      __setattr(self,'listing',listing)
    return __init__


def _14(__MISSING, __setattr, __default_files, __default_types, __default_types_or, __default_pass_filenames, __default_require_serial, __default_always_run, __default_owns):
    def __init__(self,name,description,files=__default_files,types=__default_types,types_or=__default_types_or,pass_filenames=__default_pass_filenames,require_serial=__default_require_serial,always_run=__default_always_run,owns=__default_owns):
      __setattr(self,'name',name)
      __setattr(self,'description',description)
      __setattr(self,'files',files)
      __setattr(self,'types',types)
      __setattr(self,'types_or',types_or)
      __setattr(self,'pass_filenames',pass_filenames)
      __setattr(self,'require_serial',require_serial)
      __setattr(self,'always_run',always_run)
      __setattr(self,'owns',owns)
    return __init__


def _15(__MISSING, __setattr, __default_triggers, __default_keywords, __default_tags, __default_roles, __default_examples, __default_not_for, __default_domain, __default_body, __default_path, __default_dir_id, __default_digest, __default_frontmatter_line, __default_plugin, __factory_frontmatter):
    def __init__(self,name,description,triggers=__default_triggers,keywords=__default_keywords,tags=__default_tags,roles=__default_roles,examples=__default_examples,not_for=__default_not_for,domain=__default_domain,body=__default_body,path=__default_path,dir_id=__default_dir_id,digest=__default_digest,frontmatter_line=__default_frontmatter_line,frontmatter=__MISSING,plugin=__default_plugin):
      __setattr(self,'name',name)
      __setattr(self,'description',description)
      __setattr(self,'triggers',triggers)
      __setattr(self,'keywords',keywords)
      __setattr(self,'tags',tags)
      __setattr(self,'roles',roles)
      __setattr(self,'examples',examples)
      __setattr(self,'not_for',not_for)
      __setattr(self,'domain',domain)
      __setattr(self,'body',body)
      __setattr(self,'path',path)
      __setattr(self,'dir_id',dir_id)
      __setattr(self,'digest',digest)
      __setattr(self,'frontmatter_line',frontmatter_line)
      __setattr(self,'frontmatter',__factory_frontmatter() if frontmatter is __MISSING else frontmatter)
      __setattr(self,'plugin',plugin)
    return __init__


def _16(__MISSING, __setattr, __default_git, __default_path, __default_rev, __default_subdir):
    def __init__(self,name,git=__default_git,path=__default_path,rev=__default_rev,subdir=__default_subdir):
      __setattr(self,'name',name)
      __setattr(self,'git',git)
      __setattr(self,'path',path)
      __setattr(self,'rev',rev)
      __setattr(self,'subdir',subdir)
    return __init__


def _17(__MISSING, __setattr, __default_entry_fields, __default_entry_cap, __default_budget_share, __default_context_window, __default_budget_when_unknown, __default_name_max, __default_description_max, __default_hide_field, __default_order, __default_depth, __default_max_dirs, __default_source, __default_field_rules, __default_manifests):
    def __init__(self,name,label,folders,nested,fields,entry_fields=__default_entry_fields,entry_cap=__default_entry_cap,budget_share=__default_budget_share,context_window=__default_context_window,budget_when_unknown=__default_budget_when_unknown,name_max=__default_name_max,description_max=__default_description_max,hide_field=__default_hide_field,order=__default_order,depth=__default_depth,max_dirs=__default_max_dirs,source=__default_source,field_rules=__default_field_rules,manifests=__default_manifests):
      __setattr(self,'name',name)
      __setattr(self,'label',label)
      __setattr(self,'folders',folders)
      __setattr(self,'nested',nested)
      __setattr(self,'fields',fields)
      __setattr(self,'entry_fields',entry_fields)
      __setattr(self,'entry_cap',entry_cap)
      __setattr(self,'budget_share',budget_share)
      __setattr(self,'context_window',context_window)
      __setattr(self,'budget_when_unknown',budget_when_unknown)
      __setattr(self,'name_max',name_max)
      __setattr(self,'description_max',description_max)
      __setattr(self,'hide_field',hide_field)
      __setattr(self,'order',order)
      __setattr(self,'depth',depth)
      __setattr(self,'max_dirs',max_dirs)
      __setattr(self,'source',source)
      __setattr(self,'field_rules',field_rules)
      __setattr(self,'manifests',manifests)
    return __init__


def _18(__MISSING, __setattr):
    def __init__(self,name,path,listed,description_chars,shown_chars,reason,cost):
      __setattr(self,'name',name)
      __setattr(self,'path',path)
      __setattr(self,'listed',listed)
      __setattr(self,'description_chars',description_chars)
      __setattr(self,'shown_chars',shown_chars)
      __setattr(self,'reason',reason)
      __setattr(self,'cost',cost)
    return __init__


def _19(__MISSING, __setattr, __default_description, __default_domain, __default_digest, __default_lexical_rank, __default_vector_rank, __default_vector_sim, __default_stale_vector, __default_explanation, __default_known_request, __default_channels):
    def __init__(self,name,score,description=__default_description,domain=__default_domain,digest=__default_digest,lexical_rank=__default_lexical_rank,vector_rank=__default_vector_rank,vector_sim=__default_vector_sim,stale_vector=__default_stale_vector,explanation=__default_explanation,known_request=__default_known_request,channels=__default_channels):
      self.name=name
      self.score=score
      self.description=description
      self.domain=domain
      self.digest=digest
      self.lexical_rank=lexical_rank
      self.vector_rank=vector_rank
      self.vector_sim=vector_sim
      self.stale_vector=stale_vector
      self.explanation=explanation
      self.known_request=known_request
      self.channels=channels
    return __init__


def _20(__MISSING, __setattr):
    def __init__(self,path,text,front,raw,raw_line,body,body_line,lines):
      __setattr(self,'path',path)
      __setattr(self,'text',text)
      __setattr(self,'front',front)
      __setattr(self,'raw',raw)
      __setattr(self,'raw_line',raw_line)
      __setattr(self,'body',body)
      __setattr(self,'body_line',body_line)
      __setattr(self,'lines',lines)
    return __init__


def _21(__MISSING, __setattr):
    def __init__(self,prefixes,template,repeated,elision):
      __setattr(self,'prefixes',prefixes)
      __setattr(self,'template',template)
      __setattr(self,'repeated',repeated)
      __setattr(self,'elision',elision)
    return __init__


def _22(__MISSING, __setattr, __default_present, __default_closed, __default_raw, __default_body, __default_yaml_start_line, __default_body_line):
    def __init__(self,present=__default_present,closed=__default_closed,raw=__default_raw,body=__default_body,yaml_start_line=__default_yaml_start_line,body_line=__default_body_line):
      __setattr(self,'present',present)
      __setattr(self,'closed',closed)
      __setattr(self,'raw',raw)
      __setattr(self,'body',body)
      __setattr(self,'yaml_start_line',yaml_start_line)
      __setattr(self,'body_line',body_line)
    return __init__


def _23(__MISSING, __setattr, __default_provider, __default_model, __default_base_url, __default_api_key_env, __default_command, __default_pass_env, __default_allow_network, __default_max_calls, __default_max_tokens, __default_max_cost_usd, __default_price_input_per_mtok, __default_timeout_seconds, __default_max_retries, __default_cache):
    def __init__(self,provider=__default_provider,model=__default_model,base_url=__default_base_url,api_key_env=__default_api_key_env,command=__default_command,pass_env=__default_pass_env,allow_network=__default_allow_network,max_calls=__default_max_calls,max_tokens=__default_max_tokens,max_cost_usd=__default_max_cost_usd,price_input_per_mtok=__default_price_input_per_mtok,timeout_seconds=__default_timeout_seconds,max_retries=__default_max_retries,cache=__default_cache):
      __setattr(self,'provider',provider)
      __setattr(self,'model',model)
      __setattr(self,'base_url',base_url)
      __setattr(self,'api_key_env',api_key_env)
      __setattr(self,'command',command)
      __setattr(self,'pass_env',pass_env)
      __setattr(self,'allow_network',allow_network)
      __setattr(self,'max_calls',max_calls)
      __setattr(self,'max_tokens',max_tokens)
      __setattr(self,'max_cost_usd',max_cost_usd)
      __setattr(self,'price_input_per_mtok',price_input_per_mtok)
      __setattr(self,'timeout_seconds',timeout_seconds)
      __setattr(self,'max_retries',max_retries)
      __setattr(self,'cache',cache)
    return __init__


def _24(__MISSING, __setattr, __default_limit, __default_mode, __default_explain, __default_role, __default_domain, __default_tags, __default_allow, __default_deny, __default_allow_exec, __default_agent, __default_view, __default_context_window, __default_root, __default_config_file):
    def __init__(self,query,limit=__default_limit,mode=__default_mode,explain=__default_explain,role=__default_role,domain=__default_domain,tags=__default_tags,allow=__default_allow,deny=__default_deny,allow_exec=__default_allow_exec,agent=__default_agent,view=__default_view,context_window=__default_context_window,root=__default_root,config_file=__default_config_file):
      __setattr(self,'query',query)
      __setattr(self,'limit',limit)
      __setattr(self,'mode',mode)
      __setattr(self,'explain',explain)
      __setattr(self,'role',role)
      __setattr(self,'domain',domain)
      __setattr(self,'tags',tags)
      __setattr(self,'allow',allow)
      __setattr(self,'deny',deny)
      __setattr(self,'allow_exec',allow_exec)
      __setattr(self,'agent',agent)
      __setattr(self,'view',view)
      __setattr(self,'context_window',context_window)
      __setattr(self,'root',root)
      __setattr(self,'config_file',config_file)
    return __init__


def _25(__MISSING, __setattr, __default_hits, __default_degraded, __default_abstained, __default_top_sim, __default_embedded, __default_embed_tokens, __default_embed_ms, __default_stopword_only, __default_notes):
    def __init__(self,query,ranking,hits=__default_hits,degraded=__default_degraded,abstained=__default_abstained,top_sim=__default_top_sim,embedded=__default_embedded,embed_tokens=__default_embed_tokens,embed_ms=__default_embed_ms,stopword_only=__default_stopword_only,notes=__default_notes):
      __setattr(self,'query',query)
      __setattr(self,'ranking',ranking)
      __setattr(self,'hits',hits)
      __setattr(self,'degraded',degraded)
      __setattr(self,'abstained',abstained)
      __setattr(self,'top_sim',top_sim)
      __setattr(self,'embedded',embedded)
      __setattr(self,'embed_tokens',embed_tokens)
      __setattr(self,'embed_ms',embed_ms)
      __setattr(self,'stopword_only',stopword_only)
      __setattr(self,'notes',notes)
    return __init__


def _26(__MISSING, __setattr, __default_notes):
    def __init__(self,reason,notes=__default_notes):
      __setattr(self,'reason',reason)
      __setattr(self,'notes',notes)
    return __init__


def _27(__MISSING, __setattr, __default_examples_problem):
    def __init__(self,result,min_sim,view,sources,index,examples_problem=__default_examples_problem):
      __setattr(self,'result',result)
      __setattr(self,'min_sim',min_sim)
      __setattr(self,'view',view)
      __setattr(self,'sources',sources)
      __setattr(self,'index',index)
      __setattr(self,'examples_problem',examples_problem)
    return __init__


def _28(__MISSING, __setattr, __default_found, __default_empty, __default_searched, __default_notes, __default_refused, __default_stray, __default_dot_skipped, __default_unserved, __default_beyond_cap, __default_direct, __factory_roots, __factory_stats, __factory_plugins):
    def __init__(self,root,found=__default_found,empty=__default_empty,searched=__default_searched,notes=__default_notes,refused=__default_refused,stray=__default_stray,dot_skipped=__default_dot_skipped,unserved=__default_unserved,roots=__MISSING,stats=__MISSING,beyond_cap=__default_beyond_cap,direct=__default_direct,plugins=__MISSING):
      __setattr(self,'root',root)
      __setattr(self,'found',found)
      __setattr(self,'empty',empty)
      __setattr(self,'searched',searched)
      __setattr(self,'notes',notes)
      __setattr(self,'refused',refused)
      __setattr(self,'stray',stray)
      __setattr(self,'dot_skipped',dot_skipped)
      __setattr(self,'unserved',unserved)
      __setattr(self,'roots',__factory_roots() if roots is __MISSING else roots)
      __setattr(self,'stats',__factory_stats() if stats is __MISSING else stats)
      __setattr(self,'beyond_cap',beyond_cap)
      __setattr(self,'direct',direct)
      __setattr(self,'plugins',__factory_plugins() if plugins is __MISSING else plugins)
    return __init__


def _29(__MISSING, __setattr, __default_root, __default_skills, __default_secret_patterns, __default_sources, __default_notes, __default_project_file, __default_user_file, __default_repository_model, __default_repository_command, __default_skill_sources, __default_source_folders, __default_source_findings, __factory_search, __factory_embeddings, __factory_roles, __factory_validate, __factory_judge):
    def __init__(self,root=__default_root,search=__MISSING,embeddings=__MISSING,skills=__default_skills,roles=__MISSING,secret_patterns=__default_secret_patterns,sources=__default_sources,notes=__default_notes,validate=__MISSING,project_file=__default_project_file,user_file=__default_user_file,repository_model=__default_repository_model,repository_command=__default_repository_command,skill_sources=__default_skill_sources,source_folders=__default_source_folders,source_findings=__default_source_findings,judge=__MISSING):
      __setattr(self,'root',root)
      __setattr(self,'search',__factory_search() if search is __MISSING else search)
      __setattr(self,'embeddings',__factory_embeddings() if embeddings is __MISSING else embeddings)
      __setattr(self,'skills',skills)
      __setattr(self,'roles',__factory_roles() if roles is __MISSING else roles)
      __setattr(self,'secret_patterns',secret_patterns)
      __setattr(self,'sources',sources)
      __setattr(self,'notes',notes)
      __setattr(self,'validate',__factory_validate() if validate is __MISSING else validate)
      __setattr(self,'project_file',project_file)
      __setattr(self,'user_file',user_file)
      __setattr(self,'repository_model',repository_model)
      __setattr(self,'repository_command',repository_command)
      __setattr(self,'skill_sources',skill_sources)
      __setattr(self,'source_folders',source_folders)
      __setattr(self,'source_findings',source_findings)
      __setattr(self,'judge',__factory_judge() if judge is __MISSING else judge)
    return __init__


def _30(__MISSING, __setattr, __default_root, __default_skills, __default_diagnostics):
    def __init__(self,root=__default_root,skills=__default_skills,diagnostics=__default_diagnostics):
      __setattr(self,'root',root)
      __setattr(self,'skills',skills)
      __setattr(self,'diagnostics',diagnostics)
      self.__post_init__()
    return __init__


def _31(__MISSING, __setattr, __default_roots, __default_notes):
    def __init__(self,roots=__default_roots,notes=__default_notes):
      __setattr(self,'roots',roots)
      __setattr(self,'notes',notes)
    return __init__


def _32(__MISSING, __setattr, __default_terms):
    def __init__(self,score,length,avg_length,n_docs,terms=__default_terms):
      __setattr(self,'score',score)
      __setattr(self,'length',length)
      __setattr(self,'avg_length',avg_length)
      __setattr(self,'n_docs',n_docs)
      __setattr(self,'terms',terms)
    return __init__


def _33(__MISSING, __setattr, __default_lead):
    def __init__(self,severity,text,lead=__default_lead):
      __setattr(self,'severity',severity)
      __setattr(self,'text',text)
      __setattr(self,'lead',lead)
    return __init__


def _34(__MISSING, __setattr, __default_options):
    def __init__(self,target,options=__default_options):
      __setattr(self,'target',target)
      __setattr(self,'options',options)
    return __init__


def _35(__MISSING, __setattr, __default_fields):
    def __init__(self,term,idf,tf,points,fields=__default_fields):
      __setattr(self,'term',term)
      __setattr(self,'idf',idf)
      __setattr(self,'tf',tf)
      __setattr(self,'points',points)
      __setattr(self,'fields',fields)
    return __init__


def _36(__MISSING, __setattr, __default_value, __default_empty, __default_diagnostics):
    def __init__(self,value=__default_value,empty=__default_empty,diagnostics=__default_diagnostics):
      __setattr(self,'value',value)
      __setattr(self,'empty',empty)
      __setattr(self,'diagnostics',diagnostics)
    return __init__


def _37(__MISSING, __setattr, __default_near_left, __factory_values, __factory_problems):
    def __init__(self,values=__MISSING,problems=__MISSING,near_left=__default_near_left):
      self.values=__factory_values() if values is __MISSING else values
      self.problems=__factory_problems() if problems is __MISSING else problems
      self.near_left=near_left
    return __init__


INITS = {
    "def __init__(self,agent,context_window,budget_chars,used_chars,needed_chars,entries):\n  __setattr(self,'agent',agent)\n  __setattr(self,'context_window',context_window)\n  __setattr(self,'budget_chars',budget_chars)\n  __setattr(self,'used_chars',used_chars)\n  __setattr(self,'needed_chars',needed_chars)\n  __setattr(self,'entries',entries)": _0,
    "def __init__(self,cases=__default_cases,cases_configured=__default_cases_configured,minimums=__MISSING,min_spec=__default_min_spec,baseline=__default_baseline,max_flips=__default_max_flips,max_rank_drops=__default_max_rank_drops,mode=__default_mode,k=__default_k,secrets_baseline=__default_secrets_baseline,near_duplicate_threshold=__default_near_duplicate_threshold,near_duplicate_cosine=__default_near_duplicate_cosine,description_limits=__MISSING,severity=__MISSING,ignore=__default_ignore,agents=__MISSING,fail_on_gate_change=__default_fail_on_gate_change,preset=__default_preset,judge_max_flips=__default_judge_max_flips):\n  __setattr(self,'cases',cases)\n  __setattr(self,'cases_configured',cases_configured)\n  __setattr(self,'minimums',__factory_minimums() if minimums is __MISSING else minimums)\n  __setattr(self,'min_spec',min_spec)\n  __setattr(self,'baseline',baseline)\n  __setattr(self,'max_flips',max_flips)\n  __setattr(self,'max_rank_drops',max_rank_drops)\n  __setattr(self,'mode',mode)\n  __setattr(self,'k',k)\n  __setattr(self,'secrets_baseline',secrets_baseline)\n  __setattr(self,'near_duplicate_threshold',near_duplicate_threshold)\n  __setattr(self,'near_duplicate_cosine',near_duplicate_cosine)\n  __setattr(self,'description_limits',__factory_description_limits() if description_limits is __MISSING else description_limits)\n  __setattr(self,'severity',__factory_severity() if severity is __MISSING else severity)\n  __setattr(self,'ignore',ignore)\n  __setattr(self,'agents',__factory_agents() if agents is __MISSING else agents)\n  __setattr(self,'fail_on_gate_change',fail_on_gate_change)\n  __setattr(self,'preset',preset)\n  __setattr(self,'judge_max_flips',judge_max_flips)": _1,
    "def __init__(self,code,name,severity,scope,module,triggers,files,summary,preset=__default_preset,details=__default_details):\n  __setattr(self,'code',code)\n  __setattr(self,'name',name)\n  __setattr(self,'severity',severity)\n  __setattr(self,'scope',scope)\n  __setattr(self,'module',module)\n  __setattr(self,'triggers',triggers)\n  __setattr(self,'files',files)\n  __setattr(self,'summary',summary)\n  __setattr(self,'preset',preset)\n  __setattr(self,'details',details)": _2,
    "def __init__(self,command=__default_command,named_command=__default_named_command,pass_env=__default_pass_env,agent=__default_agent,timeout_seconds=__default_timeout_seconds,cache=__default_cache,fetch_in_ci=__default_fetch_in_ci,max_calls=__default_max_calls):\n  __setattr(self,'command',command)\n  __setattr(self,'named_command',named_command)\n  __setattr(self,'pass_env',pass_env)\n  __setattr(self,'agent',agent)\n  __setattr(self,'timeout_seconds',timeout_seconds)\n  __setattr(self,'cache',cache)\n  __setattr(self,'fetch_in_ci',fetch_in_ci)\n  __setattr(self,'max_calls',max_calls)": _3,
    "def __init__(self,config,view,messages=__default_messages):\n  __setattr(self,'config',config)\n  __setattr(self,'view',view)\n  __setattr(self,'messages',messages)": _4,
    "def __init__(self,field,kind,choices=__default_choices,pattern=__default_pattern,requires=__default_requires):\n  __setattr(self,'field',field)\n  __setattr(self,'kind',kind)\n  __setattr(self,'choices',choices)\n  __setattr(self,'pattern',pattern)\n  __setattr(self,'requires',requires)": _5,
    "def __init__(self,file,line,codes,reason):\n  __setattr(self,'file',file)\n  __setattr(self,'line',line)\n  __setattr(self,'codes',codes)\n  __setattr(self,'reason',reason)": _6,
    "def __init__(self,file=__default_file,line=__default_line,column=__default_column,code=__default_code,message=__default_message,severity=__default_severity,hint=__default_hint,rule=__default_rule):\n  __setattr(self,'file',file)\n  __setattr(self,'line',line)\n  __setattr(self,'column',column)\n  __setattr(self,'code',code)\n  __setattr(self,'message',message)\n  __setattr(self,'severity',severity)\n  __setattr(self,'hint',hint)\n  __setattr(self,'rule',rule)": _7,
    "def __init__(self,hits,blocks_scored,postings_scored,n_blocks):\n  __setattr(self,'hits',hits)\n  __setattr(self,'blocks_scored',blocks_scored)\n  __setattr(self,'postings_scored',postings_scored)\n  __setattr(self,'n_blocks',n_blocks)": _8,
    "def __init__(self,kind,doc=__default_doc,keys=__default_keys,values=__default_values,items=__default_items,options=__default_options,choices=__default_choices,empty_ok=__default_empty_ok,low=__default_low,high=__default_high,between=__default_between,finite=__default_finite,nonblank=__default_nonblank,nullable=__default_nullable,schema_null=__default_schema_null,one_or_list=__default_one_or_list,required=__default_required,min_items=__default_min_items,max_items=__default_max_items,entries=__default_entries,unknown=__default_unknown,strict=__default_strict,same_label=__default_same_label,default=__default_default,check=__default_check,key_names=__default_key_names,label=__default_label,messages=__MISSING,schema=__MISSING):\n  __setattr(self,'kind',kind)\n  __setattr(self,'doc',doc)\n  __setattr(self,'keys',keys)\n  __setattr(self,'values',values)\n  __setattr(self,'items',items)\n  __setattr(self,'options',options)\n  __setattr(self,'choices',choices)\n  __setattr(self,'empty_ok',empty_ok)\n  __setattr(self,'low',low)\n  __setattr(self,'high',high)\n  __setattr(self,'between',between)\n  __setattr(self,'finite',finite)\n  __setattr(self,'nonblank',nonblank)\n  __setattr(self,'nullable',nullable)\n  __setattr(self,'schema_null',schema_null)\n  __setattr(self,'one_or_list',one_or_list)\n  __setattr(self,'required',required)\n  __setattr(self,'min_items',min_items)\n  __setattr(self,'max_items',max_items)\n  __setattr(self,'entries',entries)\n  __setattr(self,'unknown',unknown)\n  __setattr(self,'strict',strict)\n  __setattr(self,'same_label',same_label)\n  __setattr(self,'default',default)\n  __setattr(self,'check',check)\n  __setattr(self,'key_names',key_names)\n  __setattr(self,'label',label)\n  __setattr(self,'messages',__factory_messages() if messages is __MISSING else messages)\n  __setattr(self,'schema',__factory_schema() if schema is __MISSING else schema)": _9,
    "def __init__(self,kind,label,line,column,masked,allowed=__default_allowed):\n  __setattr(self,'kind',kind)\n  __setattr(self,'label',label)\n  __setattr(self,'line',line)\n  __setattr(self,'column',column)\n  __setattr(self,'masked',masked)\n  __setattr(self,'allowed',allowed)": _10,
    "def __init__(self,kind,label,regex,needles,check=__default_check,help=__default_help,folded=__default_folded,elidable=__default_elidable,prefilter=__default_prefilter):\n  __setattr(self,'kind',kind)\n  __setattr(self,'label',label)\n  __setattr(self,'regex',regex)\n  __setattr(self,'needles',needles)\n  __setattr(self,'check',check)\n  __setattr(self,'help',help)\n  __setattr(self,'folded',folded)\n  __setattr(self,'elidable',elidable)\n  __setattr(self,'prefilter',prefilter)": _11,
    "def __init__(self,mode=__default_mode,fields=__default_fields,index_body=__default_index_body,body_chars=__default_body_chars,fusion=__default_fusion,rrf_k=__default_rrf_k,weight_lexical=__default_weight_lexical,weight_vector=__default_weight_vector,vector_min_sim=__default_vector_min_sim,candidates=__default_candidates,query_timeout_ms=__default_query_timeout_ms,batch_size=__default_batch_size,index_dir=__default_index_dir,dtype=__default_dtype,log_queries=__default_log_queries,long_query=__default_long_query,long_query_words=__default_long_query_words,examples=__default_examples,example_weight=__default_example_weight,mnz_bonus=__default_mnz_bonus,mnz_depth=__default_mnz_depth,request_lexical_weight=__default_request_lexical_weight):\n  __setattr(self,'mode',mode)\n  __setattr(self,'fields',fields)\n  __setattr(self,'index_body',index_body)\n  __setattr(self,'body_chars',body_chars)\n  __setattr(self,'fusion',fusion)\n  __setattr(self,'rrf_k',rrf_k)\n  __setattr(self,'weight_lexical',weight_lexical)\n  __setattr(self,'weight_vector',weight_vector)\n  __setattr(self,'vector_min_sim',vector_min_sim)\n  __setattr(self,'candidates',candidates)\n  __setattr(self,'query_timeout_ms',query_timeout_ms)\n  __setattr(self,'batch_size',batch_size)\n  __setattr(self,'index_dir',index_dir)\n  __setattr(self,'dtype',dtype)\n  __setattr(self,'log_queries',log_queries)\n  __setattr(self,'long_query',long_query)\n  __setattr(self,'long_query_words',long_query_words)\n  __setattr(self,'examples',examples)\n  __setattr(self,'example_weight',example_weight)\n  __setattr(self,'mnz_bonus',mnz_bonus)\n  __setattr(self,'mnz_depth',mnz_depth)\n  __setattr(self,'request_lexical_weight',request_lexical_weight)": _12,
    "def __init__(self,name,catalog,full,skills=__default_skills,agent=__default_agent,listing=__default_listing):\n  __setattr(self,'name',name)\n  __setattr(self,'catalog',catalog)\n  __setattr(self,'full',full)\n  __setattr(self,'skills',skills)\n  __setattr(self,'agent',agent)\n  __setattr(self,'listing',listing)": _13,
    "def __init__(self,name,description,files=__default_files,types=__default_types,types_or=__default_types_or,pass_filenames=__default_pass_filenames,require_serial=__default_require_serial,always_run=__default_always_run,owns=__default_owns):\n  __setattr(self,'name',name)\n  __setattr(self,'description',description)\n  __setattr(self,'files',files)\n  __setattr(self,'types',types)\n  __setattr(self,'types_or',types_or)\n  __setattr(self,'pass_filenames',pass_filenames)\n  __setattr(self,'require_serial',require_serial)\n  __setattr(self,'always_run',always_run)\n  __setattr(self,'owns',owns)": _14,
    "def __init__(self,name,description,triggers=__default_triggers,keywords=__default_keywords,tags=__default_tags,roles=__default_roles,examples=__default_examples,not_for=__default_not_for,domain=__default_domain,body=__default_body,path=__default_path,dir_id=__default_dir_id,digest=__default_digest,frontmatter_line=__default_frontmatter_line,frontmatter=__MISSING,plugin=__default_plugin):\n  __setattr(self,'name',name)\n  __setattr(self,'description',description)\n  __setattr(self,'triggers',triggers)\n  __setattr(self,'keywords',keywords)\n  __setattr(self,'tags',tags)\n  __setattr(self,'roles',roles)\n  __setattr(self,'examples',examples)\n  __setattr(self,'not_for',not_for)\n  __setattr(self,'domain',domain)\n  __setattr(self,'body',body)\n  __setattr(self,'path',path)\n  __setattr(self,'dir_id',dir_id)\n  __setattr(self,'digest',digest)\n  __setattr(self,'frontmatter_line',frontmatter_line)\n  __setattr(self,'frontmatter',__factory_frontmatter() if frontmatter is __MISSING else frontmatter)\n  __setattr(self,'plugin',plugin)": _15,
    "def __init__(self,name,git=__default_git,path=__default_path,rev=__default_rev,subdir=__default_subdir):\n  __setattr(self,'name',name)\n  __setattr(self,'git',git)\n  __setattr(self,'path',path)\n  __setattr(self,'rev',rev)\n  __setattr(self,'subdir',subdir)": _16,
    "def __init__(self,name,label,folders,nested,fields,entry_fields=__default_entry_fields,entry_cap=__default_entry_cap,budget_share=__default_budget_share,context_window=__default_context_window,budget_when_unknown=__default_budget_when_unknown,name_max=__default_name_max,description_max=__default_description_max,hide_field=__default_hide_field,order=__default_order,depth=__default_depth,max_dirs=__default_max_dirs,source=__default_source,field_rules=__default_field_rules,manifests=__default_manifests):\n  __setattr(self,'name',name)\n  __setattr(self,'label',label)\n  __setattr(self,'folders',folders)\n  __setattr(self,'nested',nested)\n  __setattr(self,'fields',fields)\n  __setattr(self,'entry_fields',entry_fields)\n  __setattr(self,'entry_cap',entry_cap)\n  __setattr(self,'budget_share',budget_share)\n  __setattr(self,'context_window',context_window)\n  __setattr(self,'budget_when_unknown',budget_when_unknown)\n  __setattr(self,'name_max',name_max)\n  __setattr(self,'description_max',description_max)\n  __setattr(self,'hide_field',hide_field)\n  __setattr(self,'order',order)\n  __setattr(self,'depth',depth)\n  __setattr(self,'max_dirs',max_dirs)\n  __setattr(self,'source',source)\n  __setattr(self,'field_rules',field_rules)\n  __setattr(self,'manifests',manifests)": _17,
    "def __init__(self,name,path,listed,description_chars,shown_chars,reason,cost):\n  __setattr(self,'name',name)\n  __setattr(self,'path',path)\n  __setattr(self,'listed',listed)\n  __setattr(self,'description_chars',description_chars)\n  __setattr(self,'shown_chars',shown_chars)\n  __setattr(self,'reason',reason)\n  __setattr(self,'cost',cost)": _18,
    'def __init__(self,name,score,description=__default_description,domain=__default_domain,digest=__default_digest,lexical_rank=__default_lexical_rank,vector_rank=__default_vector_rank,vector_sim=__default_vector_sim,stale_vector=__default_stale_vector,explanation=__default_explanation,known_request=__default_known_request,channels=__default_channels):\n  self.name=name\n  self.score=score\n  self.description=description\n  self.domain=domain\n  self.digest=digest\n  self.lexical_rank=lexical_rank\n  self.vector_rank=vector_rank\n  self.vector_sim=vector_sim\n  self.stale_vector=stale_vector\n  self.explanation=explanation\n  self.known_request=known_request\n  self.channels=channels': _19,
    "def __init__(self,path,text,front,raw,raw_line,body,body_line,lines):\n  __setattr(self,'path',path)\n  __setattr(self,'text',text)\n  __setattr(self,'front',front)\n  __setattr(self,'raw',raw)\n  __setattr(self,'raw_line',raw_line)\n  __setattr(self,'body',body)\n  __setattr(self,'body_line',body_line)\n  __setattr(self,'lines',lines)": _20,
    "def __init__(self,prefixes,template,repeated,elision):\n  __setattr(self,'prefixes',prefixes)\n  __setattr(self,'template',template)\n  __setattr(self,'repeated',repeated)\n  __setattr(self,'elision',elision)": _21,
    "def __init__(self,present=__default_present,closed=__default_closed,raw=__default_raw,body=__default_body,yaml_start_line=__default_yaml_start_line,body_line=__default_body_line):\n  __setattr(self,'present',present)\n  __setattr(self,'closed',closed)\n  __setattr(self,'raw',raw)\n  __setattr(self,'body',body)\n  __setattr(self,'yaml_start_line',yaml_start_line)\n  __setattr(self,'body_line',body_line)": _22,
    "def __init__(self,provider=__default_provider,model=__default_model,base_url=__default_base_url,api_key_env=__default_api_key_env,command=__default_command,pass_env=__default_pass_env,allow_network=__default_allow_network,max_calls=__default_max_calls,max_tokens=__default_max_tokens,max_cost_usd=__default_max_cost_usd,price_input_per_mtok=__default_price_input_per_mtok,timeout_seconds=__default_timeout_seconds,max_retries=__default_max_retries,cache=__default_cache):\n  __setattr(self,'provider',provider)\n  __setattr(self,'model',model)\n  __setattr(self,'base_url',base_url)\n  __setattr(self,'api_key_env',api_key_env)\n  __setattr(self,'command',command)\n  __setattr(self,'pass_env',pass_env)\n  __setattr(self,'allow_network',allow_network)\n  __setattr(self,'max_calls',max_calls)\n  __setattr(self,'max_tokens',max_tokens)\n  __setattr(self,'max_cost_usd',max_cost_usd)\n  __setattr(self,'price_input_per_mtok',price_input_per_mtok)\n  __setattr(self,'timeout_seconds',timeout_seconds)\n  __setattr(self,'max_retries',max_retries)\n  __setattr(self,'cache',cache)": _23,
    "def __init__(self,query,limit=__default_limit,mode=__default_mode,explain=__default_explain,role=__default_role,domain=__default_domain,tags=__default_tags,allow=__default_allow,deny=__default_deny,allow_exec=__default_allow_exec,agent=__default_agent,view=__default_view,context_window=__default_context_window,root=__default_root,config_file=__default_config_file):\n  __setattr(self,'query',query)\n  __setattr(self,'limit',limit)\n  __setattr(self,'mode',mode)\n  __setattr(self,'explain',explain)\n  __setattr(self,'role',role)\n  __setattr(self,'domain',domain)\n  __setattr(self,'tags',tags)\n  __setattr(self,'allow',allow)\n  __setattr(self,'deny',deny)\n  __setattr(self,'allow_exec',allow_exec)\n  __setattr(self,'agent',agent)\n  __setattr(self,'view',view)\n  __setattr(self,'context_window',context_window)\n  __setattr(self,'root',root)\n  __setattr(self,'config_file',config_file)": _24,
    "def __init__(self,query,ranking,hits=__default_hits,degraded=__default_degraded,abstained=__default_abstained,top_sim=__default_top_sim,embedded=__default_embedded,embed_tokens=__default_embed_tokens,embed_ms=__default_embed_ms,stopword_only=__default_stopword_only,notes=__default_notes):\n  __setattr(self,'query',query)\n  __setattr(self,'ranking',ranking)\n  __setattr(self,'hits',hits)\n  __setattr(self,'degraded',degraded)\n  __setattr(self,'abstained',abstained)\n  __setattr(self,'top_sim',top_sim)\n  __setattr(self,'embedded',embedded)\n  __setattr(self,'embed_tokens',embed_tokens)\n  __setattr(self,'embed_ms',embed_ms)\n  __setattr(self,'stopword_only',stopword_only)\n  __setattr(self,'notes',notes)": _25,
    "def __init__(self,reason,notes=__default_notes):\n  __setattr(self,'reason',reason)\n  __setattr(self,'notes',notes)": _26,
    "def __init__(self,result,min_sim,view,sources,index,examples_problem=__default_examples_problem):\n  __setattr(self,'result',result)\n  __setattr(self,'min_sim',min_sim)\n  __setattr(self,'view',view)\n  __setattr(self,'sources',sources)\n  __setattr(self,'index',index)\n  __setattr(self,'examples_problem',examples_problem)": _27,
    "def __init__(self,root,found=__default_found,empty=__default_empty,searched=__default_searched,notes=__default_notes,refused=__default_refused,stray=__default_stray,dot_skipped=__default_dot_skipped,unserved=__default_unserved,roots=__MISSING,stats=__MISSING,beyond_cap=__default_beyond_cap,direct=__default_direct,plugins=__MISSING):\n  __setattr(self,'root',root)\n  __setattr(self,'found',found)\n  __setattr(self,'empty',empty)\n  __setattr(self,'searched',searched)\n  __setattr(self,'notes',notes)\n  __setattr(self,'refused',refused)\n  __setattr(self,'stray',stray)\n  __setattr(self,'dot_skipped',dot_skipped)\n  __setattr(self,'unserved',unserved)\n  __setattr(self,'roots',__factory_roots() if roots is __MISSING else roots)\n  __setattr(self,'stats',__factory_stats() if stats is __MISSING else stats)\n  __setattr(self,'beyond_cap',beyond_cap)\n  __setattr(self,'direct',direct)\n  __setattr(self,'plugins',__factory_plugins() if plugins is __MISSING else plugins)": _28,
    "def __init__(self,root=__default_root,search=__MISSING,embeddings=__MISSING,skills=__default_skills,roles=__MISSING,secret_patterns=__default_secret_patterns,sources=__default_sources,notes=__default_notes,validate=__MISSING,project_file=__default_project_file,user_file=__default_user_file,repository_model=__default_repository_model,repository_command=__default_repository_command,skill_sources=__default_skill_sources,source_folders=__default_source_folders,source_findings=__default_source_findings,judge=__MISSING):\n  __setattr(self,'root',root)\n  __setattr(self,'search',__factory_search() if search is __MISSING else search)\n  __setattr(self,'embeddings',__factory_embeddings() if embeddings is __MISSING else embeddings)\n  __setattr(self,'skills',skills)\n  __setattr(self,'roles',__factory_roles() if roles is __MISSING else roles)\n  __setattr(self,'secret_patterns',secret_patterns)\n  __setattr(self,'sources',sources)\n  __setattr(self,'notes',notes)\n  __setattr(self,'validate',__factory_validate() if validate is __MISSING else validate)\n  __setattr(self,'project_file',project_file)\n  __setattr(self,'user_file',user_file)\n  __setattr(self,'repository_model',repository_model)\n  __setattr(self,'repository_command',repository_command)\n  __setattr(self,'skill_sources',skill_sources)\n  __setattr(self,'source_folders',source_folders)\n  __setattr(self,'source_findings',source_findings)\n  __setattr(self,'judge',__factory_judge() if judge is __MISSING else judge)": _29,
    "def __init__(self,root=__default_root,skills=__default_skills,diagnostics=__default_diagnostics):\n  __setattr(self,'root',root)\n  __setattr(self,'skills',skills)\n  __setattr(self,'diagnostics',diagnostics)\n  self.__post_init__()": _30,
    "def __init__(self,roots=__default_roots,notes=__default_notes):\n  __setattr(self,'roots',roots)\n  __setattr(self,'notes',notes)": _31,
    "def __init__(self,score,length,avg_length,n_docs,terms=__default_terms):\n  __setattr(self,'score',score)\n  __setattr(self,'length',length)\n  __setattr(self,'avg_length',avg_length)\n  __setattr(self,'n_docs',n_docs)\n  __setattr(self,'terms',terms)": _32,
    "def __init__(self,severity,text,lead=__default_lead):\n  __setattr(self,'severity',severity)\n  __setattr(self,'text',text)\n  __setattr(self,'lead',lead)": _33,
    "def __init__(self,target,options=__default_options):\n  __setattr(self,'target',target)\n  __setattr(self,'options',options)": _34,
    "def __init__(self,term,idf,tf,points,fields=__default_fields):\n  __setattr(self,'term',term)\n  __setattr(self,'idf',idf)\n  __setattr(self,'tf',tf)\n  __setattr(self,'points',points)\n  __setattr(self,'fields',fields)": _35,
    "def __init__(self,value=__default_value,empty=__default_empty,diagnostics=__default_diagnostics):\n  __setattr(self,'value',value)\n  __setattr(self,'empty',empty)\n  __setattr(self,'diagnostics',diagnostics)": _36,
    'def __init__(self,values=__MISSING,problems=__MISSING,near_left=__default_near_left):\n  self.values=__factory_values() if values is __MISSING else values\n  self.problems=__factory_problems() if problems is __MISSING else problems\n  self.near_left=near_left': _37,
}
