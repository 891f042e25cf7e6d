// The IB findings' tests: one module per finding id in test/unit/ib-findings/
// (as the findings are one function per id, src/model/nccl/ib-findings/),
// run together from this one file so the model and the fixture nodes load
// once: forty separate test files cost 46 s of CPU against 8 s here.
// One id alone: npx vitest run test/unit/ib-findings.test.ts -t IB-001
import '../helpers/fixture-faults.js';
import './ib-findings/list.js';
import './ib-findings/ib001.js';
import './ib-findings/ib002.js';
import './ib-findings/ib003.js';
import './ib-findings/ib004.js';
import './ib-findings/ib005.js';
import './ib-findings/ib006.js';
import './ib-findings/ib007.js';
import './ib-findings/ib008.js';
import './ib-findings/ib009.js';
import './ib-findings/ib010.js';
import './ib-findings/ib011.js';
import './ib-findings/ib012.js';
import './ib-findings/ib013.js';
import './ib-findings/ib014.js';
import './ib-findings/ib015.js';
import './ib-findings/ib016.js';
import './ib-findings/ib017.js';
import './ib-findings/ib018.js';
import './ib-findings/ib019.js';
import './ib-findings/ib020.js';
import './ib-findings/ib021.js';
import './ib-findings/ib022.js';
import './ib-findings/ib023.js';
import './ib-findings/ib024.js';
import './ib-findings/ib025.js';
import './ib-findings/ib026.js';
import './ib-findings/ib027.js';
import './ib-findings/ib028.js';
import './ib-findings/ib029.js';
import './ib-findings/ib030.js';
import './ib-findings/ib031.js';
import './ib-findings/ib032.js';
import './ib-findings/ib033.js';
import './ib-findings/ib034.js';
import './ib-findings/ib035.js';
import './ib-findings/ib036.js';
import './ib-findings/ib037.js';
import './ib-findings/ib038.js';
import './ib-findings/ib039.js';
