/* The report page's script: see cli/report/README.md. */
"use strict";
document.documentElement.dataset.rlReady = "1";
