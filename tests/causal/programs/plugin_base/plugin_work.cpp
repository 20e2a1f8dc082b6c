// A library plugin_host loads at start with a source file named as the plugin's:
// --progress plugin_work.cpp:LINE must find the plugin's line, not stop here.
extern "C" __attribute__((visibility("default"))) int plugin_base_version() { return 1; }
