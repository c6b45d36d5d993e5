// escape_xml: every markup character and the white space an attribute would normalise.
#include "hetscale/base/xml_text.hpp"

#include <gtest/gtest.h>

namespace hetscale {
namespace {

TEST(EscapeXml, MarkupAndAttributeWhiteSpace) {
  EXPECT_EQ(escape_xml("a<b>&\"c'd"), "a&lt;b&gt;&amp;&quot;c&#39;d");
  EXPECT_EQ(escape_xml("x\ny\rz\tw"), "x&#10;y&#13;z&#9;w");
  EXPECT_EQ(escape_xml("plain n[1-4] 20.29"), "plain n[1-4] 20.29");
  EXPECT_EQ(escape_xml(""), "");
  EXPECT_EQ(escape_xml("\xc3\xa9"), "\xc3\xa9");  // UTF-8 passes through
}

}  // namespace
}  // namespace hetscale
