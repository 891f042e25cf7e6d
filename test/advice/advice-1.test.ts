import { adviceSuite } from './suite.js';

adviceSuite(0, 4);
