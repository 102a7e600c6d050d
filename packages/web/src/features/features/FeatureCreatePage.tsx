import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function FeatureCreatePage() {
  return <FeaturePending titleKey="pages.featureCreate" />;
}
