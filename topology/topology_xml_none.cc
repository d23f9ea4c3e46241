// Builds without hwloc (the sysfs fallback, Windows) cannot read hwloc XML: say so.
#include "topology/topology_xml.hh"

namespace xttcp {

Expected<XmlMachine> load_xml_machine(const std::string&, const std::string&) {
  return fail("hwloc XML needs hwloc (not found at build time)");
}

}  // namespace xttcp
