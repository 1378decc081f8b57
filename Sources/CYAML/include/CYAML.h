#ifndef CYAML_H
#define CYAML_H

/// libyaml (Debian's libyaml-0-2), the YAML parser weathertag reads front matter with. Through this header only:
/// Swift reaches its events directly.
#include <yaml.h>

#endif
