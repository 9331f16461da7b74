// Found only through an include-path option: options.cu needs it.
#define OPTIONS_VALUE 42
