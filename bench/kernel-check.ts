/**
 * The kernel checks of the browser tests (e2e/pages/crfCheck.ts) in Node on Dawn and SwiftShader
 * (bench/dawn-local.ts): a quick loop while writing a kernel; e2e/kernels.spec.ts is the test.
 *
 *   npx tsx bench/kernel-check.ts [crf|chars|conv|lstm-fused|lstm|adam|model]...
 */
import { startLocalWebgpu } from './dawn-local';

await startLocalWebgpu();
const check = await import('../e2e/pages/crfCheck');
const which = process.argv.slice(2);
const want = (k: string) => which.length === 0 || which.includes(k);
if (want('crf')) console.log('crf', JSON.stringify(await check.runCrfCheck(), null, 1));
if (want('chars')) console.log('chars', JSON.stringify(await check.runCharCnnCheck(), null, 1));
if (want('conv')) console.log('conv', JSON.stringify(await check.runConvCheck(), null, 1));
if (want('lstm-fused')) console.log('lstm-fused', JSON.stringify(await check.runLstmFusedCheck(), null, 1));
if (want('lstm')) console.log('lstm', JSON.stringify(await check.runLstmCheck()));
if (want('adam')) console.log('adam', JSON.stringify(await check.runAdamCheck(6)));
if (want('model')) for (const e of ['bilstm', 'idcnn'] as const) console.log('model', e, JSON.stringify(await check.runModelGradCheck(e, 0)));
