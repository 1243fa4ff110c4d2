"""memoryd's typed configuration, in three parts: the kinds of value a key holds
(:mod:`daemon.config.kinds`), the sections that declare every key
(:mod:`daemon.config.sections`), and loading ``memoryd.toml`` with the environment and the
command line over it (:mod:`daemon.config.loading`, which explains the precedence).

This package's names are what the rest of memoryd imports.
"""

from daemon.config.kinds import (
    BUILT_IN_BLOCK,
    Adjustment,
    BlockSpec,
    ConfigError,
    HostPort,
    redact_url,
)
from daemon.config.loading import (
    CONFIG_FILE_NAME,
    CONFIG_PATH_ENV,
    ENV_PREFIX,
    PLUGIN_KEYS,
    config_from_mapping,
    default_config_path,
    describe_keys,
    env_var_name,
    load_config,
)
from daemon.config.sections import (
    SECTIONS,
    Config,
    ConsolidationConfig,
    LlmBudgetConfig,
    LlmConfig,
    LoggingConfig,
    MemoryConfig,
    ModelsConfig,
    PromotionConfig,
    RecallConfig,
    RetrospectiveConfig,
    SalienceWeightsConfig,
    ServerConfig,
    StorageConfig,
    key_default,
)

__all__ = [
    "BUILT_IN_BLOCK",
    "CONFIG_FILE_NAME",
    "CONFIG_PATH_ENV",
    "ENV_PREFIX",
    "PLUGIN_KEYS",
    "SECTIONS",
    "Adjustment",
    "BlockSpec",
    "Config",
    "ConfigError",
    "ConsolidationConfig",
    "HostPort",
    "LlmBudgetConfig",
    "LlmConfig",
    "LoggingConfig",
    "MemoryConfig",
    "ModelsConfig",
    "PromotionConfig",
    "RecallConfig",
    "RetrospectiveConfig",
    "SalienceWeightsConfig",
    "ServerConfig",
    "StorageConfig",
    "config_from_mapping",
    "default_config_path",
    "describe_keys",
    "env_var_name",
    "key_default",
    "load_config",
    "redact_url",
]
